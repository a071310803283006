import APICore
import APICoreOffline
import CacheKitTesting
import ContactsKit
import Foundation
import HTTPTypes
import MIBApp
import MIBCore
import ReferenceBackend
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Idempotency keys attacked over HTTP: a key is its user's own, it is bound to the path it came with, and a
/// stranger's keyed body is never read before the route refuses them.
@Suite(.timeLimit(.minutes(10))) struct IdempotencyKeyTests {
    func send(
        _ fixture: BackendFixture, _ method: HTTPRequest.Method, _ path: String, key: String, token: String, json: String = ""
    ) async throws -> TransportResponse {
        var fields: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(token)"]
        fields[try #require(HTTPField.Name("Idempotency-Key"))] = key
        return try await fixture.transport.send(
            TransportRequest(
                method: method, url: fixture.backend.baseURL.appendingPathComponent(path), headerFields: fields,
                body: json.isEmpty ? nil : Data(json.utf8), timeout: TestDeadline.request))
    }

    /// Bob sends the key and the request Alice sent: his change is made in his address book, not answered
    /// with hers.
    @Test func aKeyOneUserSentIsAnotherUsersOwn() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.token()
            let bob = try await fixture.token("bob@example.com", "Password2")
            let body = #"{"id":"shared-1","displayName":"Shared","phones":[],"emails":[]}"#
            #expect(try await send(fixture, .post, "contacts", key: "k-shared", token: alice, json: body).status == 201)
            let second = try await send(fixture, .post, "contacts", key: "k-shared", token: bob, json: body)
            #expect(second.status == 201)
            #expect(second.headerFields[try #require(HTTPField.Name("Idempotent-Replayed"))] == nil, "bob got alice's answer")
            #expect(try await fixture.get("/contacts/shared-1", token: bob).status == 200, "bob's contact was never made")
        }
    }

    /// Two users importing the same address book send different keys; one user importing it again, the same.
    @Test func anImportsKeyIsItsUsersOwn() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"),
                logger: AppLifeTests.quiet)
            let drafts = [ContactDraft(deviceId: "abc", displayName: "Same Person", phones: ["+1 555 0100"])]
            var keys: [String] = []
            for (email, password) in [("alice@example.com", "Password1"), ("bob@example.com", "Password2")] {
                try await app.signIn(email: email, password: password)
                await app.queue.stop()
                for _ in 0..<2 { try await app.contacts.importDeviceContacts(drafts) }
                keys += await app.queue.pending().filter { $0.name == ContactsClient.Mutation.importContacts }.map(\.idempotencyKey)
                _ = await app.logOut()
            }
            #expect(keys.count == 2, "one import a user (the second asked again is the same): \(keys)")
            #expect(Set(keys).count == 2, "two users share an import's key")
        }
    }

    /// One key, two paths: the second request is refused and changes nothing.
    @Test func aKeySentAgainWithAnotherPathIsRefused() async throws {
        try await withBackend(5) { fixture in
            let alice = try await fixture.token()
            #expect(try await send(fixture, .delete, "contacts/c2", key: "k-delete", token: alice).status == 200)
            let again = try await send(fixture, .delete, "contacts/c3", key: "k-delete", token: alice)
            #expect(again.status == 422)
            #expect(String(decoding: again.body, as: UTF8.self).contains("IDEMPOTENCY_KEY_REUSED"))
            #expect(try await fixture.get("/contacts/c3", token: alice).status == 200, "c3 was deleted under c2's key")
        }
    }

    /// A stranger announces a 1 MB keyed body and sends 10 bytes: the server answers 401 at once instead of
    /// waiting to read (and keep) the rest.
    @Test func aStrangersKeyedBodyIsNeverWaitedFor() async throws {
        try await withBackend(5) { fixture in
            let port = try #require(fixture.backend.baseURL.port)
            let request =
                "DELETE /contacts/c2 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nIdempotency-Key: k-stranger\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"a\":\"b\"}"
            // The rest of the body never comes: a server that waits for it never answers within the minute (no time is
            // measured: the minute only bounds the wait).
            // On a thread of its own: a blocking read on one of the two cooperative threads could starve the
            // backend it waits for, which runs in this process.
            let answer = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try Self.exchange(request, port: port, waiting: 60) }) }
            }
            #expect(answer.hasPrefix("HTTP/1.1 401"), "answered: \(answer.prefix(80))")
        }
    }

    /// Writes `request` on a new connection to 127.0.0.1:`port` and returns what the server answers within
    /// `seconds` (empty when nothing came).
    static func exchange(_ request: String, port: Int, waiting seconds: Int) throws -> String {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(request.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = read(descriptor, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }
}
