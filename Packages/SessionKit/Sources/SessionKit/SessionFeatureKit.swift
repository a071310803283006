import APICore

/// SessionKit as the composition root installs it: it provides the ``SessionManager`` (its use
/// cases: launch, sign-in, logout, account switch and deletion) and the clients' `TokenProvider`.
/// The manager subscribes to the shared `AuthEvents` when it is created, so any kit's 401 or 403
/// ends the session.
public struct SessionFeatureKit: FeatureKit {
    /// `session`.
    public let name = "session"
    /// The session it provides.
    public let session: SessionManager

    /// Wraps a session.
    public init(session: SessionManager) {
        self.session = session
    }

    /// Registers the session and the token provider.
    public func register(in registry: KitRegistry) throws(ContainerError) {
        let session = self.session
        try registry.register(SessionManager.self) { _ in session }
        try registry.register((any TokenProvider).self) { _ in session }
    }
}
