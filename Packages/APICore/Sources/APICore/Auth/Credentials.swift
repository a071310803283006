/// The signed-in user's access token and id. The id scopes what the HTTP cache stores, so one user's
/// responses are never served to another.
public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Sent as `Authorization: Bearer <token>`; never logged.
    public var accessToken: String
    /// The user the token belongs to.
    public var userId: String

    /// Creates credentials.
    public init(accessToken: String, userId: String) {
        self.accessToken = accessToken
        self.userId = userId
    }

    /// The user, never the token: `"\(credentials)"` in a log line or an assertion's message leaks nothing.
    public var description: String { "Credentials(user: \(userId), token: <redacted>)" }

    /// As ``description``: a debugger's dump of a value holding credentials shows no token either.
    public var debugDescription: String { description }
}

/// Supplies the current credentials to `RESTClient` on every request (SessionKit registers one).
/// The client never reads a token from global state.
public protocol TokenProvider: Sendable {
    /// The current credentials, or `nil` when nobody is signed in.
    func currentCredentials() async -> Credentials?
}
