import APICore
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@Suite(.timeLimit(.minutes(10))) struct ConnectivityTests {
    @Test func statusFollowsTheTransportAndAProbeWithBackoffBringsItBack() async throws {
        let serverUp = Locked(false)
        let transport = RecordingTransport()
        transport.stub(.get, "/health") { _ in
            serverUp.withLock { $0 } ? .success(TransportResponse(status: 200)) : .failure(.offline(reason: "refused"))
        }
        transport.stub(.get, "/data", error: .offline(reason: "refused"))
        let sleeper = ManualSleeper()
        let connectivity = TransportConnectivity(
            probe: URL(string: "http://api.test/health"),
            backoff: RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(60)), sleeper: sleeper, random: { 1 })
        let observed = connectivity.observing(transport)
        var updates = connectivity.statusUpdates().makeAsyncIterator()
        #expect(await updates.next() == .unknown)

        _ = try? await observed.send(TransportRequest(method: .get, url: try #require(URL(string: "http://api.test/data"))))
        #expect(await updates.next() == .offline)
        // The first probe fails: the next waits twice as long.
        try await waitUntil("the first probe's wait") { sleeper.delays.count == 1 }
        sleeper.wakeAll()
        try await waitUntil("the second probe's wait") { sleeper.delays.count == 2 }
        #expect(sleeper.delays == [.seconds(1), .seconds(2)])
        #expect(connectivity.status == .offline)
        serverUp.withLock { $0 = true }
        sleeper.wakeAll()
        #expect(await updates.next() == .online)
        #expect(transport.requests.filter { $0.url.path == "/health" }.count == 2)
    }

    @Test func anyResponseMeansOnlineAndACancellationSaysNothing() async throws {
        let transport = RecordingTransport()
        transport.stub(.get, "/gone", status: 500)
        transport.stub(.get, "/cancelled", error: .cancelled)
        let connectivity = TransportConnectivity()
        let observed = connectivity.observing(transport)
        _ = try? await observed.send(TransportRequest(method: .get, url: try #require(URL(string: "http://api.test/cancelled"))))
        #expect(connectivity.status == .unknown)
        _ = try await observed.send(TransportRequest(method: .get, url: try #require(URL(string: "http://api.test/gone"))))
        #expect(connectivity.status == .online, "a 500 is a server answering")
    }

    @Test func whenOnlineAgainRunsOnEachReturnOnly() async throws {
        let transport = RecordingTransport()
        transport.stub(.get, "/ok", status: 200)
        transport.stub(.get, "/down", error: .timedOut)
        let connectivity = TransportConnectivity()
        let observed = connectivity.observing(transport)
        let returns = Locked(0)
        let watcher = connectivity.whenOnlineAgain { returns.withLock { $0 += 1 } }
        defer { watcher.cancel() }
        let ok = try #require(URL(string: "http://api.test/ok"))
        let down = try #require(URL(string: "http://api.test/down"))
        _ = try await observed.send(TransportRequest(method: .get, url: ok))  // unknown → online: not a return
        _ = try? await observed.send(TransportRequest(method: .get, url: down))
        _ = try await observed.send(TransportRequest(method: .get, url: ok))
        try await waitUntil("one return") { returns.withLock { $0 } == 1 }
        _ = try await observed.send(TransportRequest(method: .get, url: ok))
        #expect(returns.withLock { $0 } == 1)
    }
}
