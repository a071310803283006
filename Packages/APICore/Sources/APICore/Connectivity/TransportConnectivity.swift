import CacheKit
import Foundation
import HTTPTypes

/// Connectivity inferred from the transport: any response (whatever its status) means online, and
/// a request that reached no server (unreachable, timed out, dropped) means offline. While offline
/// it probes a URL with exponential backoff, so the status returns to online without waiting for
/// the app's next request.
///
/// ```swift
/// let connectivity = TransportConnectivity(probe: api.appending(path: "health"))
/// let transport = connectivity.observing(URLSessionTransport())   // give this to every client
/// connectivity.whenOnlineAgain { await queue.replay() }
/// ```
public final class TransportConnectivity: Connectivity {
    private let broadcast = ConnectivityBroadcast()
    private let probing = Locked<Task<Void, Never>?>(nil)
    private let probeURL: URL?
    private let backoff: RetryPolicy
    private let sleeper: any Sleeper
    private let random: @Sendable () -> Double
    private let probeTransport = Locked<(any HTTPTransport)?>(nil)

    /// Creates a connectivity.
    ///
    /// - Parameters:
    ///   - probe: a URL to ask while offline (a cheap `GET`, such as a health check); `nil` for none,
    ///     in which case only the app's own requests bring the status back.
    ///   - backoff: the delays between probes (exponential with jitter, capped at `maxDelay`); its
    ///     `maxAttempts` is ignored: probing goes on until a server answers.
    ///   - sleeper: waits between probes (inject one in tests).
    ///   - random: a number in `0...1` for the jitter.
    public init(
        probe: URL? = nil, backoff: RetryPolicy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(60)),
        sleeper: any Sleeper = TaskSleeper(), random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        probeURL = probe
        self.backoff = backoff
        self.sleeper = sleeper
        self.random = random
    }

    deinit {
        probing.withLock { $0?.cancel() }
    }

    /// The status now.
    public var status: ConnectivityStatus { broadcast.status }

    /// The status now, then every change.
    public func statusUpdates() -> AsyncStream<ConnectivityStatus> { broadcast.updates() }

    /// A transport that reports every outcome of `transport` here; the probe goes through it too.
    public func observing(_ transport: any HTTPTransport) -> any HTTPTransport {
        probeTransport.withLock { $0 = $0 ?? transport }
        return ObservedTransport(base: transport, connectivity: self)
    }

    /// Records that a server answered.
    public func recordResponse() {
        update(to: .online)
    }

    /// Records a transport failure; a cancellation, a pin mismatch or an answer too large (a server did
    /// answer) or a request that could not be written says nothing about the network.
    public func recordFailure(_ error: TransportError) {
        switch error {
        case .pinMismatch, .invalidRequest, .cancelled, .responseTooLarge: return
        default: update(to: .offline)
        }
    }

    private func update(to status: ConnectivityStatus) {
        // One lock orders status changes and the probe task, so a probe never outlives "online".
        let startProbe: Bool = probing.withLock { probing in
            guard broadcast.set(status) else { return false }
            if status == .online {
                probing?.cancel()
                probing = nil
                return false
            }
            return probing == nil
        }
        if startProbe { startProbing() }
    }

    private func startProbing() {
        guard let probeURL, let transport = probeTransport.withLock({ $0 }) else { return }
        let task = Task { [weak self, backoff, sleeper, random] in
            var attempt = 0
            while !Task.isCancelled {
                attempt += 1
                do {
                    try await sleeper.sleep(for: backoff.delay(beforeRetry: attempt, unit: random()))
                } catch {
                    return
                }
                guard let self, self.status == .offline else { return }
                // Straight to the transport, not through `observing`: a failed probe changes nothing.
                if (try? await transport.send(TransportRequest(method: .get, url: probeURL, timeout: .seconds(10)))) != nil {
                    self.probing.withLock { $0 = nil }
                    self.recordResponse()
                    return
                }
            }
        }
        probing.withLock { probing in
            if status == .offline, probing == nil { probing = task } else { task.cancel() }
        }
    }
}

/// A transport whose outcomes feed a ``TransportConnectivity``.
struct ObservedTransport: HTTPTransport {
    let base: any HTTPTransport
    let connectivity: TransportConnectivity

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        do {
            let response = try await base.send(request)
            connectivity.recordResponse()
            return response
        } catch {
            connectivity.recordFailure(error)
            throw error
        }
    }
}
