#if canImport(Security)
    import Foundation
    import Security

    /// Keeps the token in the Keychain on Apple platforms: a generic password under a service and an
    /// account, readable after the device's first unlock (so a background refresh can use it while the
    /// screen is locked), **this device only** (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: never
    /// restored onto another device from a backup) and never synchronized to other devices.
    /// Logout, expiry and account deletion remove it with ``delete()``. Keychain failures are
    /// ``TokenStoreError/io(operation:errno:)`` with the `OSStatus` as the code; the token never reaches
    /// an error or a log.
    public final class KeychainTokenStore: TokenStore {
        /// The Keychain service, usually the app's bundle identifier.
        public let service: String
        /// The Keychain account under the service.
        public let account: String

        /// Creates a store for one item.
        /// - Parameters:
        ///   - service: the Keychain service (the app's bundle identifier).
        ///   - account: the item's account name; one item holds the signed-in user's token.
        public init(service: String, account: String = "session-token") {
            self.service = service
            self.account = account
        }

        private var itemQuery: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
                kSecAttrSynchronizable as String: kCFBooleanFalse as Any,
            ]
        }

        /// Reads and decodes the item.
        public func load() throws(TokenStoreError) -> StoredToken? {
            var query = itemQuery
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else {
                throw .io(operation: "keychain read", errno: status)
            }
            do {
                return try JSONDecoder().decode(StoredToken.self, from: data)
            } catch {
                throw .corrupt(reason: "the keychain item does not decode (\(data.count) bytes)")
            }
        }

        /// Replaces the item (updated in place, or added when there is none).
        public func save(_ token: StoredToken) throws(TokenStoreError) {
            let data: Data
            do {
                data = try JSONEncoder().encode(token)
            } catch {
                throw .corrupt(reason: "the token does not encode")
            }
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(itemQuery as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                let item = itemQuery.merging(attributes) { $1 }
                status = SecItemAdd(item as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw .io(operation: "keychain write", errno: status) }
        }

        /// Removes the item; no error when there is none.
        public func delete() throws(TokenStoreError) {
            let status = SecItemDelete(itemQuery as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .io(operation: "keychain delete", errno: status)
            }
        }
    }
#endif
