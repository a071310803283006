import APICore
import CacheKit
import CacheKitTesting
import Foundation
import GRDB
import HTTPTypes
import ReferenceBackend
import Testing

/// The auth contract (REQ AUTH) over real HTTP: login with the shared rules, validate, logout, 401 and 403.
@Suite(.timeLimit(.minutes(10))) struct AuthContractTests {
    func login(_ fixture: BackendFixture, _ email: String, _ password: String) async throws -> (status: Int, body: JSONValue) {
        let response = try await fixture.send(.post, "/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        return (response.status, try JSONValue.parse(response.body))
    }

    func token(_ fixture: BackendFixture, _ email: String = "alice@example.com", _ password: String = "Password1") async throws -> String {
        let (status, body) = try await login(fixture, email, password)
        #expect(status == 200)
        return try #require(body["data"]?["token"]?.stringValue)
    }

    /// A password is compared as typed: the same letters in another case are another password (each variant
    /// meets the shared rules, so only the comparison can refuse it). The e-mail's case does not matter.
    @Test func passwordsAreCaseSensitiveAndEmailsAreNot() async throws {
        try await withBackend(5) { fixture in
            for variant in ["pASSWORD1", "PassworD1", "Password1 ", "PASSWORd1"] {
                let (status, body) = try await login(fixture, "alice@example.com", variant)
                #expect(status == 401 || (status == 400 && variant.hasSuffix(" ")), "\(variant)")
                #expect(body["data"]?["token"] == nil, "\(variant) signed in")
            }
            #expect(try await login(fixture, "Alice@Example.COM", "Password1").status == 200)
            #expect(try await login(fixture, "alice@example.com", "Password1").status == 200)
        }
    }

    @Test func loginValidateAndLogout() async throws {
        try await withBackend(5) { fixture in
            let token = try await token(fixture)
            let valid = try await fixture.get("/auth/validate", token: token)
            #expect(valid.status == 200)
            let body = try JSONValue.parse(valid.body)
            #expect(body["valid"] == true)
            #expect(body["expiresAt"]?.stringValue?.hasSuffix("Z") == true)
            #expect(try await fixture.get("/api/me", token: token).status == 200)

            #expect(try await fixture.send(.post, "/auth/logout", json: "", token: token).status == 204)
            #expect(try await fixture.get("/auth/validate", token: token).status == 401)
            #expect(try await fixture.get("/api/me", token: token).status == 401)
        }
    }

    /// REQ AUTH-3: `/auth/validate` checks the token's signature and expiry only, with no database read:
    /// a signed token of a user whose row is gone still validates, while `/api/me`, which reads the row,
    /// refuses it.
    @Test func validateReadsNoDatabaseButTheSignatureAndExpiry() async throws {
        try await withBackend(5) { fixture in
            let token = try await token(fixture)
            let database = try DatabaseQueue(path: fixture.directory.url.appendingPathComponent("backend.sqlite").path)
            try await database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF; DELETE FROM user WHERE email = 'alice@example.com'")
            }
            try database.close()
            #expect(try await fixture.get("/api/me", token: token).status == 401, "the row is gone")
            let valid = try await fixture.get("/auth/validate", token: token)
            let body = try JSONValue.parse(valid.body)
            #expect(valid.status == 200 && body["valid"] == true, "validated from the token alone")
        }
    }

    @Test func theSharedRulesAndWrongCredentialsAreTypedErrors() async throws {
        try await withBackend(5) { fixture in
            let badEmail = try await login(fixture, "alice.example.com", "Password1")
            #expect(badEmail.status == 400 && badEmail.body["error"]?["code"] == "INVALID_EMAIL")
            let weak = try await login(fixture, "alice@example.com", "password")
            #expect(weak.status == 400 && weak.body["error"]?["code"] == "WEAK_PASSWORD")
            #expect(weak.body["error"]?["details"]?["unmet"] == "uppercaseLetter,digit")
            let wrong = try await login(fixture, "alice@example.com", "Password9")
            #expect(wrong.status == 401 && wrong.body["error"]?["code"] == "INVALID_CREDENTIALS")
            let unknown = try await login(fixture, "nobody@example.com", "Password1")
            #expect(unknown.status == 401)
        }
    }

    @Test func missingInvalidExpiredAndOtherUsersTokens() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        try await withBackend(5, now: { clock.withLock { $0 } }) { fixture in
            #expect(try await fixture.get("/api/me").status == 401)
            #expect(try await fixture.get("/api/me", token: "not.a-token").status == 401)
            let alice = try await token(fixture)
            var forged = Array(alice)
            forged[forged.count / 3] = forged[forged.count / 3] == "A" ? "B" : "A"
            #expect(try await fixture.get("/api/me", token: String(forged)).status == 401)

            #expect(try await fixture.get("/api/users/u1/profile", token: alice).status == 200)
            #expect(try await fixture.get("/api/users/u2/profile", token: alice).status == 403)

            clock.withLock { $0 += 3_601 }
            #expect(try await fixture.get("/auth/validate", token: alice).status == 401)
        }
    }

    @Test func expireThisSessionNowRevokesEveryTokenIssuedSoFar() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        try await withBackend(5, now: { clock.withLock { $0 } }) { fixture in
            let first = try await token(fixture)
            let second = try await token(fixture)
            let bob = try await token(fixture, "bob@example.com", "Password2")
            #expect(try await fixture.send(.post, "/admin/sessions/u1/expire", json: "").status == 204)
            #expect(try await fixture.get("/api/me", token: first).status == 401)
            #expect(try await fixture.get("/api/me", token: second).status == 401)
            #expect(try await fixture.get("/api/me", token: bob).status == 200)
            clock.withLock { $0 += 1 }
            let fresh = try await token(fixture)
            #expect(try await fixture.get("/api/me", token: fresh).status == 200)
        }
    }
}
