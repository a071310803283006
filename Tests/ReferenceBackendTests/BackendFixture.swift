import APICore
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging
import ReferenceBackend
import Testing

/// A started backend with its own database file, and a plain HTTP client (no cache).
struct BackendFixture {
    let directory: TemporaryDirectory
    let backend: ReferenceBackend
    let transport = URLSessionTransport()

    static func start(
        funnelCount: Int = 300, now: @escaping @Sendable () -> Date = Date.init, authRateLimits: AuthRateLimits? = AuthRateLimits(),
        contactCount: Int = 120, embedsChatMessages: Bool = true, assignsIds: Bool = false
    ) async throws -> BackendFixture {
        let directory = try TemporaryDirectory()
        var logger = Logger(label: "backend")
        logger.logLevel = .warning
        var configuration = ReferenceBackend.Configuration(
            databaseURL: directory.url.appendingPathComponent("backend.sqlite"), funnelCount: funnelCount, now: now,
            modelLatency: .zero, authRateLimits: authRateLimits, passwordWork: .light, contactCount: contactCount, logger: logger)
        configuration.chatPagesIncludeMessages = embedsChatMessages
        configuration.assignsIds = assignsIds
        let backend = try await ReferenceBackend.start(configuration)
        return BackendFixture(directory: directory, backend: backend)
    }

    func get(_ path: String, _ fields: HTTPFields = [:], token: String? = nil) async throws -> TransportResponse {
        let url = try #require(URL(string: backend.baseURL.absoluteString + path))
        var fields = fields
        if let token { fields[.authorization] = "Bearer \(token)" }
        return try await transport.send(
            TransportRequest(
                method: .get, url: url, headerFields: fields, body: nil,
                timeout: TestDeadline.request))
    }

    /// A token of the demo user `email`.
    func token(_ email: String = "alice@example.com", _ password: String = "Password1") async throws -> String {
        let response = try await send(.post, "/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        return try #require(try JSONValue.parse(response.body)["data"]?["token"]?.stringValue)
    }

    func send(_ method: HTTPRequest.Method, _ path: String, json: String, token: String? = nil) async throws -> TransportResponse {
        let url = try #require(URL(string: backend.baseURL.absoluteString + path))
        var fields: HTTPFields = [.contentType: "application/json"]
        if let token { fields[.authorization] = "Bearer \(token)" }
        return try await transport.send(
            TransportRequest(
                method: method, url: url, headerFields: fields,
                body: Data(json.utf8), timeout: TestDeadline.request))
    }
}

/// Runs `body` against a fresh backend and stops it afterwards.
func withBackend(
    _ funnelCount: Int = 300, now: @escaping @Sendable () -> Date = Date.init, authRateLimits: AuthRateLimits? = AuthRateLimits(),
    contactCount: Int = 120, embedsChatMessages: Bool = true, assignsIds: Bool = false, _ body: (BackendFixture) async throws -> Void
) async throws {
    let fixture = try await BackendFixture.start(
        funnelCount: funnelCount, now: now, authRateLimits: authRateLimits, contactCount: contactCount,
        embedsChatMessages: embedsChatMessages, assignsIds: assignsIds)
    defer { fixture.directory.remove() }
    do {
        try await body(fixture)
    } catch {
        await fixture.backend.stop()
        throw error
    }
    await fixture.backend.stop()
}

extension BackendFixture {
    /// Signs a demo user in over HTTP and returns their token and id.
    func credentials(_ email: String = "alice@example.com", _ password: String = "Password1") async throws -> Credentials {
        let response = try await send(.post, "/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        let body = try JSONValue.parse(response.body)
        return Credentials(
            accessToken: try #require(body["data"]?["token"]?.stringValue),
            userId: try #require(body["data"]?["user"]?["id"]?.stringValue))
    }
}
