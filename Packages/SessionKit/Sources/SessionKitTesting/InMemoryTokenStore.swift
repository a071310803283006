import CacheKit
import SessionKit

/// A token store in memory, for unit tests; it can be told to fail.
public final class InMemoryTokenStore: TokenStore {
    private let state: Locked<(token: StoredToken?, failure: TokenStoreError?)>

    /// Creates a store holding `token`.
    public init(_ token: StoredToken? = nil) {
        state = Locked((token, nil))
    }

    /// The token now held.
    public var token: StoredToken? { state.withLock { $0.token } }

    /// Makes every later call throw `failure` (or succeed again with `nil`).
    public func fail(with failure: TokenStoreError?) {
        state.withLock { $0.failure = failure }
    }

    /// The token, or the failure set.
    public func load() throws(TokenStoreError) -> StoredToken? {
        let (token, failure) = state.withLock { ($0.token, $0.failure) }
        if let failure { throw failure }
        return token
    }

    /// Keeps `token`, or throws the failure set.
    public func save(_ token: StoredToken) throws(TokenStoreError) {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        state.withLock { $0.token = token }
    }

    /// Forgets the token, or throws the failure set.
    public func delete() throws(TokenStoreError) {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        state.withLock { $0.token = nil }
    }
}
