import APICore
import Foundation
import HTTPTypes
import Hummingbird

/// The auth endpoints (REQ AUTH): `POST /auth/login` (the rules of ``CredentialRules``), `GET
/// /auth/validate` (signature and expiry only, no database read), `POST /auth/logout`; and the
/// guard every user route goes through: 401 for a missing, invalid or expired token, 403 for another
/// user's data.
struct AuthRoutes: Sendable {
    let database: BackendDatabase
    let signer: TokenSigner
    /// Limits failed sign-ins per client; `nil` for no limit.
    let loginLimiter: RateLimiter?
    /// Limits `/auth/validate` per client; `nil` for no limit.
    let validationLimiter: RateLimiter?

    private struct Login: Decodable {
        var email: String
        var password: String
    }

    private struct Session: Encodable {
        struct Profile: Encodable {
            var id: String
            var email: String
            var name: String
        }

        var token: String
        var expiresAt: String
        var user: Profile
        /// The key this device shows at its next sign-ins to the account (`Device-Key`), with a budget of its own.
        var deviceKey: String?
    }

    /// The field a device shows the key its last successful sign-in gave it in.
    static let deviceKeyField = HTTPField.Name("Device-Key")

    /// A new device key: 32 random bytes, in hex.
    static func newDeviceKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    private struct Validation: Encodable {
        var valid: Bool
        var expiresAt: String?
        var userId: String?
    }

    func register(on router: Router<BackendContext>) {
        router.post("auth/login") { request, context in
            let body = try? await request.decode(as: Login.self, context: context)
            guard let loginLimiter else { return try self.login(body) }
            // Per client, and per account for a client the account does not know: a token of each is taken
            // before the password is checked; a success gives them back and makes the client known.
            let client = RateLimiter.client(context)
            guard let email = body?.email.lowercased() else {
                return try await loginLimiter.limit(request, context, keys: [client]) { _, _ in try self.login(body) }
            }
            // A device that signed in to the account before shows the key it was given then, and has a budget of
            // its own: a stranger's failures on the same address (every local process is 127.0.0.1) never spend
            // it. An unknown or forged key counts for nothing.
            let presented = Self.deviceKeyField.flatMap { request.headers[$0] }.map { "device:" + $0 }
            let device = presented.flatMap { loginLimiter.isKnown(client: $0, account: email) ? $0 : nil }
            let keys = device.map { [$0] } ?? loginLimiter.loginKeys(client: client, account: email)
            return try await loginLimiter.limit(request, context, keys: keys, spends: { $0.status == .unauthorized }) { _, _ in
                let deviceKey = device.map { String($0.dropFirst("device:".count)) } ?? Self.newDeviceKey()
                let response = try self.login(body, deviceKey: deviceKey)
                if response.status == .ok {
                    loginLimiter.remember(client: client, account: email)
                    loginLimiter.remember(client: "device:" + deviceKey, account: email)
                }
                return response
            }
        }
        router.get("auth/validate") { request, context in
            guard let validationLimiter else { return try self.validate(request) }
            return try await validationLimiter.limit(request, context) { request, _ in try self.validate(request) }
        }
        router.post("auth/logout") { request, _ in
            guard let claims = self.claims(request) else { return Self.unauthorized() }
            signer.revoke(claims)
            return Response(status: .noContent)
        }
        registerUserRoutes(on: router)
    }

    private func validate(_ request: Request) throws -> Response {
        guard let claims = self.claims(request) else {
            return try Envelope.json(
                Envelope.encoder.encode(Validation(valid: false)), status: .unauthorized,
                fields: [.cacheControl: "no-store"])
        }
        return try Envelope.json(
            Envelope.encoder.encode(
                Validation(
                    valid: true, expiresAt: ISO8601.string(Date(timeIntervalSince1970: claims.exp)),
                    userId: claims.sub)),
            status: .ok, fields: [.cacheControl: "no-store"])
    }

    private func registerUserRoutes(on router: Router<BackendContext>) {
        router.get("api/me") { request, _ in
            try self.authorized(request, for: nil) { user in
                try Envelope.success(
                    Session.Profile(id: user.id, email: user.email, name: user.name), fields: [.cacheControl: "private, no-cache"])
            }
        }
        router.get("api/users/:id/profile") { request, context in
            try self.authorized(request, for: context.parameters.get("id")) { user in
                try Envelope.success(
                    Session.Profile(id: user.id, email: user.email, name: user.name),
                    fields: [.cacheControl: "private, no-cache"])
            }
        }
        router.post("admin/sessions/:userId/expire") { _, context in
            signer.expireSessions(of: context.parameters.get("userId") ?? "")
            return Response(status: .noContent)
        }
    }

    private func login(_ body: Login?, deviceKey: String? = nil) throws -> Response {
        guard let body else {
            return Envelope.failure(.badRequest, code: "INVALID_REQUEST", message: "Send {\"email\", \"password\"} as JSON.")
        }
        guard CredentialRules.isValidEmail(body.email) else {
            return Envelope.failure(.badRequest, code: "INVALID_EMAIL", message: CredentialRules.invalidEmailMessage)
        }
        let unmet = CredentialRules.unmetRequirements(body.password)
        guard unmet.isEmpty else {
            return Envelope.failure(
                .badRequest, code: "WEAK_PASSWORD", message: unmet.map(\.message).joined(separator: "; "),
                details: ["unmet": unmet.map(\.rawValue).joined(separator: ",")])
        }
        guard let user = try database.authenticate(email: body.email, password: body.password) else {
            return Envelope.failure(.unauthorized, code: "INVALID_CREDENTIALS", message: "Wrong e-mail or password.")
        }
        let (token, claims) = signer.issue(for: user.id)
        return try Envelope.success(
            Session(
                token: token, expiresAt: ISO8601.string(Date(timeIntervalSince1970: claims.exp)),
                user: .init(id: user.id, email: user.email, name: user.name), deviceKey: deviceKey),
            fields: [.cacheControl: "no-store"])
    }

    /// The claims of the request's bearer token, if valid.
    func claims(_ request: Request) -> TokenSigner.Claims? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return signer.verify(String(header.dropFirst(7)))
    }

    /// Runs `body` for the token's user; 401 without a valid token, 403 when `owner` is another user.
    func authorized(_ request: Request, for owner: String?, _ body: (User) throws -> Response) throws -> Response {
        guard let claims = claims(request), let user = try database.user(id: claims.sub) else { return Self.unauthorized() }
        if let owner, owner != user.id {
            return Envelope.failure(.forbidden, code: "FORBIDDEN", message: "This belongs to another user.")
        }
        return try body(user)
    }

    static func unauthorized() -> Response {
        Envelope.failure(.unauthorized, code: "UNAUTHORIZED", message: "Session expired, please log in again.")
    }
}
