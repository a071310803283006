import CacheKit

/// A status and its observers, shared by the ``Connectivity`` implementations.
final class ConnectivityBroadcast: Sendable {
    private struct State {
        var status = ConnectivityStatus.unknown
        var observers: [Int: AsyncStream<ConnectivityStatus>.Continuation] = [:]
        var nextObserver = 0
    }

    private let state = Locked(State())

    var status: ConnectivityStatus { state.withLock { $0.status } }

    /// The status now, then every change.
    func updates() -> AsyncStream<ConnectivityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectivityStatus.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = continuation
            continuation.yield(state.status)
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.observers.removeValue(forKey: id) } }
        return stream
    }

    /// Sets the status and tells every observer; returns whether it changed.
    @discardableResult
    func set(_ status: ConnectivityStatus) -> Bool {
        state.withLock { state in
            guard state.status != status else { return false }
            state.status = status
            for observer in state.observers.values { observer.yield(status) }
            return true
        }
    }
}
