import APICore
import CacheKit

/// Runs identical concurrent requests once: the first caller starts the work, later ones join it,
/// and every caller gets the result. A caller that is cancelled stops waiting at once without
/// disturbing the others; the work itself is cancelled only when every caller has gone.
package final class InFlightRequests<Success: Sendable>: Sendable {
    private let flights = Locked<[String: Flight]>([:])

    package init() {}

    package func run(_ key: String, operation: @escaping @Sendable () async throws(APIError) -> Success)
        async throws(APIError) -> Success
    {
        let (flight, isNew) = flights.withLock { flights -> (Flight, Bool) in
            if let flight = flights[key] { return (flight, false) }
            let flight = Flight()
            flights[key] = flight
            return (flight, true)
        }
        if isNew {
            flight.start { [weak self] in
                let result: Result<Success, APIError>
                do throws(APIError) {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                self?.end(key, flight)
                return result
            } onAbandon: { [weak self] in
                self?.end(key, flight)
            }
        }
        return try await flight.wait()
    }

    /// How many distinct requests are in flight now.
    var count: Int { flights.withLock { $0.count } }

    /// How many callers are waiting, over every flight.
    package var waiterCount: Int { flights.withLock { Array($0.values) }.reduce(0) { $0 + $1.waiterCount } }

    private func end(_ key: String, _ flight: Flight) {
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
    }

    final class Flight: Sendable {
        private struct State {
            var result: Result<Success, APIError>?
            var waiters: [Int: CheckedContinuation<Success, any Error>] = [:]
            var cancelledBeforeWaiting: Set<Int> = []
            var nextWaiter = 0
            var task: Task<Void, Never>?
            var onAbandon: (@Sendable () -> Void)?
        }

        private let state = Locked(State())

        var waiterCount: Int { state.withLock { $0.waiters.count } }

        func start(
            _ work: @escaping @Sendable () async -> Result<Success, APIError>,
            onAbandon: @escaping @Sendable () -> Void
        ) {
            state.withLock { $0.onAbandon = onAbandon }
            let task = Task { self.finish(await work()) }
            state.withLock { state in
                if state.result == nil { state.task = task }
            }
        }

        /// Hands the result to every waiter, then lets go of the work and the abandon handler: the
        /// handler holds this flight, so keeping it would keep every finished flight (and its
        /// response) alive forever.
        private func finish(_ result: Result<Success, APIError>) {
            let waiters = state.withLock { state in
                state.result = result
                state.task = nil
                state.onAbandon = nil
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(with: result.mapError { $0 }) }
        }

        func wait() async throws(APIError) -> Success {
            let id = state.withLock { state in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Success, any Error>) in
                        let immediate: Result<Success, any Error>? = state.withLock { state in
                            if let result = state.result { return result.mapError { $0 } }
                            if state.cancelledBeforeWaiting.remove(id) != nil { return .failure(CancellationError()) }
                            state.waiters[id] = continuation
                            return nil
                        }
                        if let immediate { continuation.resume(with: immediate) }
                    }
                } onCancel: {
                    self.leave(id)
                }
            } catch let error as APIError {
                throw error
            } catch {
                throw .cancelled
            }
        }

        /// A waiter was cancelled: it stops waiting; the last one to leave cancels the work.
        private func leave(_ id: Int) {
            let (continuation, abandoned) = state.withLock {
                state -> (CheckedContinuation<Success, any Error>?, (Task<Void, Never>, (@Sendable () -> Void)?)?) in
                guard let continuation = state.waiters.removeValue(forKey: id) else {
                    state.cancelledBeforeWaiting.insert(id)
                    return (nil, nil)
                }
                guard state.waiters.isEmpty, state.result == nil, let task = state.task else { return (continuation, nil) }
                defer { state.onAbandon = nil }
                return (continuation, (task, state.onAbandon))
            }
            continuation?.resume(throwing: CancellationError())
            if let (task, onAbandon) = abandoned {
                onAbandon?()
                task.cancel()
            }
        }
    }
}
