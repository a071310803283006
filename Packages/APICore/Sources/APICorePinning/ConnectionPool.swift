import APICore
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Idle HTTP/1.1 connections kept for reuse, a few per host. A connection is filed under its host, its port
/// and the pin set its handshake was checked against (`nil` for ordinary validation), so a connection is
/// never reused once the host's pins change or expire. An idle connection is closed after `idleTimeout`,
/// and one the server closed is never handed out.
final class ConnectionPool: Sendable {
    /// Where a connection leads and what its handshake was checked against.
    struct Key: Hashable, Sendable {
        let host: String
        let port: Int
        let pins: PinningPolicy.PinSet?
    }

    private struct Idle: Sendable {
        let channel: any Channel
        let expiry: Scheduled<Void>
    }

    private struct State: Sendable {
        var idle: [Key: [Idle]] = [:]
        var opened = 0
        var reused = 0
        var shutDown = false
    }

    private let state = NIOLockedValueBox(State())
    private let maximumIdlePerHost: Int
    private let idleTimeout: TimeAmount

    init(maximumIdlePerHost: Int, idleTimeout: TimeAmount) {
        self.maximumIdlePerHost = maximumIdlePerHost
        self.idleTimeout = idleTimeout
    }

    /// How many connections were opened (each with one TLS handshake) and how many requests reused one.
    var counts: (opened: Int, reused: Int) {
        state.withLockedValue { ($0.opened, $0.reused) }
    }

    /// Counts a connection just opened.
    func recordOpened() {
        state.withLockedValue { $0.opened += 1 }
    }

    /// An idle connection to `key` that is still open, taken out of the pool.
    func take(_ key: Key) -> (any Channel)? {
        state.withLockedValue { state in
            while let entry = state.idle[key]?.popLast() {
                entry.expiry.cancel()
                if entry.channel.isActive {
                    state.reused += 1
                    return entry.channel
                }
            }
            return nil
        }
    }

    /// Files `channel` for reuse, or closes it when the host has enough idle connections.
    func giveBack(_ channel: any Channel, as key: Key) {
        let expiry = channel.eventLoop.scheduleTask(in: idleTimeout) { [weak self] in
            self?.remove(channel, key: key)
            channel.close(promise: nil)
        }
        let kept = state.withLockedValue { state in
            guard !state.shutDown, state.idle[key, default: []].count < maximumIdlePerHost else { return false }
            state.idle[key, default: []].append(Idle(channel: channel, expiry: expiry))
            return true
        }
        if !kept {
            expiry.cancel()
            channel.close(promise: nil)
        }
    }

    /// Closes every idle connection; later ones are kept again.
    func closeIdle() {
        close(shuttingDown: false)
    }

    /// Closes every idle connection; none is kept after this.
    func shutDown() {
        close(shuttingDown: true)
    }

    private func close(shuttingDown: Bool) {
        let idle = state.withLockedValue { state in
            if shuttingDown { state.shutDown = true }
            defer { state.idle = [:] }
            return state.idle.values.flatMap { $0 }
        }
        for entry in idle {
            entry.expiry.cancel()
            entry.channel.close(promise: nil)
        }
    }

    private func remove(_ channel: any Channel, key: Key) {
        state.withLockedValue { state in
            state.idle[key]?.removeAll { $0.channel === channel }
        }
    }
}
