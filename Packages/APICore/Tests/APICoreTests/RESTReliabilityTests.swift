import APICoreTestServer
import APICoreTesting
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import APICore
@testable import APICoreREST

/// De-duplication, errors, auth events, retries and transport failures against a real server.
@Suite(.timeLimit(.minutes(10))) struct RESTReliabilityTests {
    @Test func fiftyConcurrentIdenticalGetsReachTheServerOnceAndACancelledCallerLeavesTheOthers() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("slow") { _, _ in
                await gate.wait()
                return reply(.ok, #"{"id":50,"name":"shared"}"#, [.cacheControl: "max-age=60"])
            }
        }) { server in
            // Whatever happens below, the origin's handlers end, so the server can stop.
            defer { gate.open() }
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let client = fixture.client
            let cancelled = Task { try await client.send(.item("/slow")) }
            let callers = (0..<49).map { _ in Task { try await client.send(.item("/slow")) } }
            try await waitUntil("50 callers waiting on the shared request") { client.inFlight.waiterCount == 50 }
            cancelled.cancel()
            await #expect(throws: APIError.cancelled) { try await cancelled.value }
            gate.open()
            for caller in callers {
                #expect(try await caller.value.value == Item(id: 50, name: "shared"))
            }
            #expect(server.count("/slow") == 1)
        }
    }

    @Test func unauthorizedPublishesAnAuthEventAndForbiddenToo() async throws {
        try await withTestServer({ router in
            router.get("private") { _, _ in reply(.unauthorized, #"{"success":false,"error":{"code":"UNAUTHORIZED","message":"expired"}}"#)
            }
            router.get("other-user") { _, _ in reply(.forbidden, "") }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            var events = fixture.client.authEvents.stream().makeAsyncIterator()
            await #expect {
                try await fixture.client.send(.item("/private"))
            } throws: { error in
                if case .unauthorized = error as? APIError { true } else { false }
            }
            let event = await events.next()
            #expect(event == AuthEvent(kind: .unauthorized, userId: "user-a", path: "/private"))
            await #expect(throws: APIError.forbidden(body: Data())) { try await fixture.client.send(.item("/other-user")) }
            #expect(await events.next()?.kind == .forbidden)
        }
    }

    @Test func idempotentRequestsRetryWithGrowingBackoffUpToTheBoundAndPostsDoNot() async throws {
        try await withTestServer({ router in
            router.get("flaky") { _, _ in reply(.serviceUnavailable, "down") }
            router.post("pay") { _, _ in reply(.serviceUnavailable, "down") }
        }) { server in
            let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(5))
            let fixture = try ClientFixture(baseURL: server.baseURL, retry: retry)
            await #expect(throws: APIError.status(code: 503, body: Data("down".utf8))) {
                try await fixture.client.send(.item("/flaky"))
            }
            #expect(server.count("/flaky") == 3)
            let delays = fixture.sleeper.delays
            #expect(delays.count == 2)
            #expect(delays.first.map { (.milliseconds(100)...Duration.milliseconds(200)).contains($0) } == true)
            #expect(delays.last.map { (.milliseconds(200)...Duration.milliseconds(400)).contains($0) } == true)

            _ = try? await fixture.client.send(APIRequest<Item>(method: .post, path: "/pay"))
            #expect(server.count("/pay") == 1)
            _ = try? await fixture.client.send(APIRequest<Item>(method: .post, path: "/pay", idempotencyKey: "payment-1"))
            #expect(server.count("/pay") == 4)
            #expect(server.requests.last?.headerFields[HTTPField.Name("Idempotency-Key")!] == "payment-1")
        }
    }

    @Test func malformedJSONIsADecodingErrorWithItsPathAndIsNotCached() async throws {
        struct Listing: Decodable { var items: [Item] }
        try await withTestServer({ router in
            router.get("wrong-type") { _, _ in
                reply(.ok, #"{"items":[{"id":1,"name":"a"},{"id":"two","name":"b"}]}"#, [.cacheControl: "max-age=60"])
            }
            router.get("truncated") { _, _ in reply(.ok, #"{"items":[{"id":1,"#, [.cacheControl: "max-age=60"]) }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            await #expect {
                try await fixture.client.send(APIRequest<Listing>(path: "/wrong-type"))
            } throws: { error in
                guard case .decoding(let path, _) = error as? APIError else { return false }
                return path == "items[1].id"
            }
            await #expect {
                try await fixture.client.send(APIRequest<Listing>(path: "/truncated"))
            } throws: { error in
                guard case .decoding(_, let reason) = error as? APIError else { return false }
                return reason.hasPrefix("malformed")
            }
            _ = try? await fixture.client.send(APIRequest<Listing>(path: "/wrong-type"))
            #expect(server.count("/wrong-type") == 2)
        }
    }

    @Test func serverEnvelopeIsDecodedIntoCodeMessageAndDetails() async throws {
        try await withTestServer({ router in
            router.get("catalog") { _, _ in
                reply(
                    .badRequest, #"{"success":false,"error":{"code":"INVALID_CURSOR","message":"Start again.","details":{"cursor":"bad"}}}"#
                )
            }
            router.get("plain") { _, _ in reply(.internalServerError, "oops") }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            await #expect(
                throws: APIError.server(
                    ServerError(
                        status: 400, code: "INVALID_CURSOR", message: "Start again.",
                        details: ["cursor": .string("bad")]))
            ) {
                try await fixture.client.send(.item("/catalog"))
            }
            await #expect(throws: APIError.status(code: 500, body: Data("oops".utf8))) {
                try await fixture.client.send(.item("/plain"))
            }
        }
    }

    @Test func fiveMegabyteBodyArrivesWholeAndIsCached() async throws {
        let size = 5 * 1024 * 1024
        try await withTestServer({ router in
            router.get("big") { _, _ in
                reply(.ok, String(repeating: "x", count: size), [.cacheControl: "max-age=60", .contentType: "application/octet-stream"])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            let first = try await fixture.client.send(APIRequest<Data>(path: "/big"))
            #expect(first.value.count == size)
            #expect(first.value.allSatisfy { $0 == UInt8(ascii: "x") })
            let second = try await fixture.client.send(APIRequest<Data>(path: "/big"))
            #expect(second.source == .cache)
            #expect(second.value == first.value)
        }
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let gate = AsyncGate()
        try await withTestServer({ router in
            router.get("never") { _, _ in
                await gate.wait()
                return reply(.ok, "{}")
            }
            router.get("prompt") { _, _ in reply(.ok, #"{"id":1,"name":"prompt"}"#) }
        }) { server in
            defer { gate.open() }
            // The timeout is measured by an injected sleeper: it fires when the test says, never
            // because the machine is slow.
            let sleeper = ManualSleeper()
            let fixture = try ClientFixture(baseURL: server.baseURL, transport: URLSessionTransport(sleeper: sleeper))
            var request = APIRequest<Item>.item("/never")
            request.timeout = .milliseconds(300)
            let pending = Task { try await fixture.client.send(request) }
            try await waitUntil("the request reached the server and its timeout started") {
                server.count("/never") == 1 && sleeper.delays.count == 1
            }
            #expect(sleeper.delays == [.milliseconds(300)])
            sleeper.wakeAll()
            await #expect(throws: APIError.transport(.timedOut)) { try await pending.value }
            // A sub-second timeout does not fire early on a prompt answer (URLSession on Linux
            // truncates it to zero seconds; the transport enforces it itself).
            var prompt = APIRequest<Item>.item("/prompt")
            prompt.timeout = .milliseconds(300)
            #expect(try await fixture.client.send(prompt).value.name == "prompt")
        }
    }

    @Test func aDroppedConnectionIsATransportError() async throws {
        struct Drop: Error {}
        try await withTestServer({ router in
            router.get("drop") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: ResponseBody(contentLength: 4096) { writer in
                        try await writer.write(ByteBuffer(string: #"{"id":1,"#))
                        throw Drop()
                    })
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            await #expect {
                try await fixture.client.send(.item("/drop"))
            } throws: { error in
                guard case .transport(let transport) = error as? APIError else { return false }
                return transport != .timedOut
            }
        }
    }
}
