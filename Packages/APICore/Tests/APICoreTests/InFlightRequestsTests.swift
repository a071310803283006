import CacheKit
import Testing

@testable import APICore
@testable import APICoreREST

/// A shared request lets go of everything once it is over.
@Suite(.timeLimit(.minutes(10))) struct InFlightRequestsTests {
    /// Sets its flag when it is deallocated.
    final class Tracked: Sendable {
        let released: Locked<Bool>
        init(_ released: Locked<Bool>) { self.released = released }
        deinit { released.withLock { $0 = true } }
    }

    @Test func aFinishedFlightReleasesItsResult() async throws {
        let released = Locked(false)
        let requests = InFlightRequests<Tracked>()
        do {
            let result = try await requests.run("key") { Tracked(released) }
            #expect(!result.released.withLock { $0 })
        }
        // The flight's abandon handler held the flight (and so its result) once kept past the end.
        #expect(requests.count == 0)
        #expect(released.withLock { $0 }, "the finished flight (or its result) was never released")
    }
}
