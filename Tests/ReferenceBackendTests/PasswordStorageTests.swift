import CacheKitTesting
import Crypto
import Foundation
import GRDB
import Testing

@testable import ReferenceBackend

/// Passwords are stored as a thief of the database file would least like (security review, finding 8):
/// scrypt with a random salt per user, never a fast hash of a predictable salt.
@Suite(.timeLimit(.minutes(10))) struct PasswordStorageTests {
    @Test func aStolenUserTableHoldsScryptHashesWithRandomSaltsThatOnlyTheRightPasswordMatches() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The cost a production server runs with is the default (the file's hashes record it); this test
        // checks with the light one, which stays fast under ThreadSanitizer.
        #expect(ReferenceBackend.Configuration(databaseURL: directory.url).passwordWork == .standard)
        #expect(PasswordWork.standard.logN == 15)
        let database = try BackendDatabase(
            url: directory.url.appendingPathComponent("backend.sqlite"), funnelCount: 1, passwordWork: .light)
        let users = try database.queue.read { db in try User.fetchAll(db) }
        #expect(users.count == BackendDatabase.demoUsers.count)
        for (user, demo) in zip(users.sorted { $0.id < $1.id }, BackendDatabase.demoUsers) {
            // What the old scheme stored, and what an attacker would try first: a SHA-256 of salt and password.
            let fast = SHA256.hash(data: Data((user.salt + ":" + demo.password).utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(user.passwordHash != fast)
            #expect(user.passwordHash.hasPrefix("scrypt$10$8$1$"), "\(user.passwordHash.prefix(14))")
            #expect(Data(base64Encoded: user.salt)?.count == 16)
            #expect(!user.passwordHash.contains(demo.password))
        }
        #expect(Set(users.map(\.salt)).count == users.count, "every user has a salt of their own")
        #expect(try database.authenticate(email: "alice@example.com", password: "Password1")?.id == "u1")
        #expect(try database.authenticate(email: "ALICE@example.com", password: "Password1")?.id == "u1")
        #expect(try database.authenticate(email: "alice@example.com", password: "Password2") == nil)
        #expect(try database.authenticate(email: "alice@example.com", password: "Password1 ") == nil)
        // An unknown e-mail is checked against a decoy of the same cost.
        #expect(try database.authenticate(email: "nobody@example.com", password: "Password1") == nil)
        #expect(database.decoy.hash.hasPrefix("scrypt$10$8$1$"))
        // Opened again by a server configured with another cost (security review two, finding 13): the decoy
        // still costs what the stored hashes cost, so a sign-in's time tells no one which e-mails exist.
        let reopened = try BackendDatabase(
            url: directory.url.appendingPathComponent("backend.sqlite"), funnelCount: 1, passwordWork: PasswordWork(logN: 12))
        #expect(reopened.decoy.hash.hasPrefix("scrypt$10$8$1$"), "\(reopened.decoy.hash.prefix(14))")
    }

    @Test func aHashInAnyOtherFormOrWithTamperedParametersNeverMatches() throws {
        let (salt, hash) = try PasswordHash.make("Password1", work: .light)
        #expect(PasswordHash.verify("Password1", salt: salt, against: hash))
        #expect(!PasswordHash.verify("Password1", salt: salt + "x", against: hash))
        #expect(!PasswordHash.verify("Password1", salt: salt, against: hash.replacingOccurrences(of: "scrypt$10$", with: "scrypt$11$")))
        #expect(!PasswordHash.verify("Password1", salt: salt, against: "plain$" + hash))
        #expect(!PasswordHash.verify("Password1", salt: "salt-1", against: SHA256.hash(data: Data("salt-1:Password1".utf8)).description))
        #expect(!PasswordHash.verify("", salt: salt, against: ""))
    }
}
