#if canImport(Security)
    import Foundation
    import SessionKit
    import Testing

    /// ``KeychainTokenStore`` against the real Keychain (Apple platforms only: the Apple workflow runs it).
    /// Each test has a service of its own, so tests running side by side never share an item.
    @Suite(.timeLimit(.minutes(10))) struct KeychainTokenStoreTests {
        static func store(_ account: String = "session-token") -> KeychainTokenStore {
            KeychainTokenStore(service: "MIBTests.\(UUID().uuidString)", account: account)
        }

        @Test func aSavedTokenLoadsBackAndDeleteRemovesIt() throws {
            let store = Self.store()
            defer { try? store.delete() }
            #expect(try store.load() == nil)
            let token = StoredToken(accessToken: "secret-1", userId: "u1", expiresAt: nil, validatedAt: Date(timeIntervalSince1970: 1_000))
            try store.save(token)
            #expect(try store.load() == token)
            var next = token
            next.accessToken = "secret-2"
            try store.save(next)
            #expect(try store.load() == next, "a save replaces the item")
            try store.delete()
            #expect(try store.load() == nil)
            try store.delete()  // none left: no error
        }

        @Test func twoStoresNeverSeeEachOthersToken() throws {
            let (first, second) = (Self.store(), Self.store())
            defer {
                try? first.delete()
                try? second.delete()
            }
            try first.save(StoredToken(accessToken: "first", userId: "u1", expiresAt: nil))
            try second.save(StoredToken(accessToken: "second", userId: "u2", expiresAt: nil))
            #expect(try first.load()?.accessToken == "first")
            #expect(try second.load()?.accessToken == "second")
            try first.delete()
            #expect(try second.load()?.accessToken == "second", "deleting one leaves the other")
        }
    }
#endif
