import APICore
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import MIBApp
import MIBCore
import ReferenceBackend
import SessionKit
import Testing

/// A local process cannot lock the owner out (security review three, finding 2; REQ AUTH-6): every client of
/// `mib serve` comes from 127.0.0.1, so the address's budget of failed sign-ins is the stranger's too. A device
/// that signed in to the account before shows the key it was given then (`Device-Key`) and has a budget of
/// its own. Attacked from the same address as the owner, through the real composition.
@Suite(.timeLimit(.minutes(10))) struct OwnerSignInBudgetTests {
    static let deviceKey = HTTPField.Name("Device-Key")!

    /// `POST /auth/login` as a stranger's process would send it, with a device key of its choice.
    static func login(_ fixture: BackendFixture, password: String, deviceKey: String? = nil) async throws -> Int {
        var fields: HTTPFields = [.contentType: "application/json"]
        if let deviceKey { fields[Self.deviceKey] = deviceKey }
        let response = try await URLSessionTransport().send(
            TransportRequest(
                method: .post, url: fixture.backend.baseURL.appendingPathComponent("auth/login"), headerFields: fields,
                body: Data(#"{"email":"alice@example.com","password":"\#(password)"}"#.utf8), timeout: TestDeadline.request))
        return response.status
    }

    @Test func aStrangersFailuresFromTheSameAddressNeverSpendTheOwnersDeviceBudget() async throws {
        let clock = ManualClock()
        let limits = AuthRateLimits(failedLogins: RateLimit(burst: 5, perSecond: 0.01))
        try await withBackend(3, now: { clock.now() }, authRateLimits: limits) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"),
                logger: AppLifeTests.quiet)
            try await app.signIn()
            _ = await app.logOut()

            // The stranger, on the same address, spends it: then even the right password is refused there.
            var statuses: [Int] = []
            for _ in 0..<8 { statuses.append(try await Self.login(fixture, password: "Wrong1234")) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.suffix(3).allSatisfy { $0 == 429 }, "\(statuses)")
            #expect(try await Self.login(fixture, password: "Password1") == 429)
            // A key the stranger makes up counts for nothing.
            #expect(try await Self.login(fixture, password: "Password1", deviceKey: String(repeating: "ab", count: 32)) == 429)

            // The owner's device, whose sign-in was refused nowhere: signed in, on its own budget.
            #expect(try await app.signIn() == "u1")
            #expect(app.session.current.user?.userId == "u1")
            _ = await app.logOut()

            // Its budget is one all the same: its own failures spend it.
            for _ in 0..<5 {
                await #expect(throws: SignInError.self) { try await app.signIn(email: "alice@example.com", password: "Wrong1234") }
            }
            await #expect(throws: SignInError.rateLimited(retryAfter: .seconds(100))) { try await app.signIn() }
        }
    }

    /// The key is kept across a logout, for its account only, and an account's deletion takes it, not another's.
    @Test func theDeviceKeyIsKeptAcrossALogoutAndErasedWithTheAccount() async throws {
        try await withBackend(3) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"),
                logger: AppLifeTests.quiet)
            let keys = try #require(app.session.configuration.deviceKeys)
            try await app.signIn()
            let key = try #require(keys.key(for: "Alice@Example.com"))
            #expect(key.count == 64 && keys.key(for: "bob@example.com") == nil)
            _ = await app.logOut()
            #expect(keys.key(for: "alice@example.com") == key)
            try await app.signIn()
            #expect(keys.key(for: "alice@example.com") == key, "a known key is kept, not replaced")
            let mode = try FileManager.default.attributesOfItem(atPath: keys.url.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            try await app.signIn(email: "bob@example.com", password: "Password2")
            let bobs = try #require(keys.key(for: "bob@example.com"))
            _ = await app.session.deleteAccountData()
            #expect(keys.key(for: "bob@example.com") == nil, "the deleted account's key is gone")
            #expect(keys.key(for: "alice@example.com") == key && bobs != key, "another account's key stays")
        }
    }
}
