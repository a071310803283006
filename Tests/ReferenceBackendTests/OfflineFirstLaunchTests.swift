import APICore
import APICoreREST
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import SessionKit
import Testing

/// The offline-first launch (REQ AUTH-2): the first screen reads the user's cache while the stored token
/// is checked, and a token the server refuses still ends with everything cleared.
@Suite(.timeLimit(.minutes(10))) struct OfflineFirstLaunchTests {
    /// Holds `GET /auth/validate` until the test opens the gate; everything else goes straight through.
    struct HeldValidation: HTTPTransport {
        let gate: AsyncGate
        let base = URLSessionTransport()

        func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
            if request.url.path == "/auth/validate" { await gate.wait() }
            return try await base.send(request)
        }
    }

    static let page = APIRequest<Data>(
        path: "/api/funnels/catalog", query: [URLQueryItem(name: "limit", value: "5")],
        cacheable: Cacheable(key: "catalog", timeout: .seconds(300), isUplifted: true))

    @Test func theCacheIsReadWhileTheTokenIsCheckedThenTheSessionIsSignedIn() async throws {
        try await SessionAgainstBackendTests.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            let gate = AsyncGate()
            defer { gate.open() }
            let relaunched = try SessionAgainstBackendTests.App(
                backend: fixture.backend, directory: app.directory, transport: HeldValidation(gate: gate))
            let check = try #require(relaunched.session.launchOfflineFirst())
            // The server has not answered: the session is validating, and the first screen reads the cache.
            #expect(relaunched.session.current == .validating)
            let cached = try await relaunched.rest.send(Self.page, policy: .returnCacheDataDontFetch)
            #expect(cached.source == .cache && !cached.value.isEmpty)
            #expect(relaunched.session.current == .validating)
            gate.open()
            await check.value
            #expect(relaunched.session.current.user?.userId == "u1")
            guard case .signedIn = relaunched.session.current else {
                Issue.record("expected signed in, got \(relaunched.session.current)")
                return
            }
        }
    }

    /// The attack: a token revoked on the server (stolen device, "sign out everywhere") is refused by the
    /// background check, and then nothing of the user's is left readable.
    @Test func aRevokedTokenEndsSignedOutWithEveryCacheCleared() async throws {
        try await SessionAgainstBackendTests.withApp { app, fixture in
            try await app.session.signIn(email: "alice@example.com", password: "Password1")
            try await app.fillCaches()
            #expect(try await fixture.send(.post, "/admin/sessions/u1/expire", json: "").status == 204)
            let relaunched = try SessionAgainstBackendTests.App(backend: fixture.backend, directory: app.directory)
            let check = try #require(relaunched.session.launchOfflineFirst())
            await check.value
            #expect(relaunched.session.current == .signedOut)
            #expect(await relaunched.entryCount() == 0)
            #expect(!FileManager.default.fileExists(atPath: relaunched.tokenFile.path))
            // Nothing cached, precisely: not a transport error or a refusal that would also pass here.
            await #expect(throws: APIError.notCached()) {
                try await relaunched.rest.send(Self.page, policy: .returnCacheDataDontFetch)
            }
        }
    }

    @Test func withoutAStoredTokenTheSessionIsSignedOutAtOnce() async throws {
        try await SessionAgainstBackendTests.withApp { app, _ in
            #expect(app.session.launchOfflineFirst() == nil)
            #expect(app.session.current == .signedOut)
        }
    }
}
