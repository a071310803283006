import CacheKit
import Foundation

/// An endpoint as telemetry names it: the path's template, with every segment that could identify a
/// person or a record replaced by `{id}` and no query at all (REQ OBS-1). `/api/accounts/1002/transactions?after=x`
/// becomes `/api/accounts/{id}/transactions`; `/users/alice@example.com` becomes `/users/{id}`.
///
/// A segment is kept only when it is a known route name: one of ``builtInRouteNames`` or a name a kit
/// declared with ``declareRouteNames(_:)``. Everything else (numbers, UUIDs, e-mails, tokens, and user
/// names in lower case such as `/users/alice`) is `{id}`, so no value reaches a sink whatever the route.
/// A route a kit forgot to declare is over-redacted (`/api/{id}`), never leaked.
public enum EndpointTemplate {
    /// Route names every template keeps: the common REST nouns and the routes of this repository's kits.
    public static let builtInRouteNames: Set<String> = [
        "api", "v1", "v2", "v3", "auth", "login", "logout", "validate", "refresh", "token", "session", "sessions",
        "users", "user", "me", "profile", "profiles", "accounts", "account", "transactions", "payments", "transfers",
        "funnels", "catalog", "definition", "favorites", "contacts", "changes", "circles", "avatars", "import",
        "enrichment", "score", "suggestions", "subscription", "subscribe", "premium", "graphql", "health", "admin",
        "faults", "chat", "chat-history", "threads", "messages", "predict", "ask", "compatibility", "match",
        "astrodata", "chart", "dasha", "transits", "todays-prediction", "summary", "notes", "disputes", "state",
        "active", "search", "images", "photos", "thumbnails", "settings", "notifications", "devices", "items",
        "orders", "products", "pages", "feed", "events", "status", "files",
    ]

    private static let declared = Locked<Set<String>>([])

    /// Declares more route names to keep (a kit's own routes, from its `FeatureKit.register(into:)`):
    /// lower-case words of letters, `-` and `_`; anything else is ignored.
    public static func declareRouteNames(_ names: some Sequence<String>) {
        let valid = names.filter { isRouteShaped(Substring($0)) }
        declared.withLock { $0.formUnion(valid) }
    }

    /// The template of `path` (a URL's path; a query, if present, is dropped).
    public static func of(path: String) -> String {
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let segments = pathOnly.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            isRouteName(segment) ? String(segment) : "{id}"
        }
        return "/" + segments.joined(separator: "/")
    }

    /// A GraphQL operation's endpoint: `/graphql#AccountBalance` (the operation name is in the document
    /// the app ships, not in the user's data); an operation name that is not a plain identifier is `{op}`.
    public static func graphQL(path: String, operation: String?) -> String {
        let name = operation.flatMap { name in
            name.count <= 64 && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
                && name.unicodeScalars.allSatisfy(\.isASCII) ? name : nil
        }
        return of(path: path) + "#" + (name ?? "{op}")
    }

    private static func isRouteName(_ segment: Substring) -> Bool {
        guard isRouteShaped(segment) else { return false }
        let name = String(segment)
        return builtInRouteNames.contains(name) || declared.withLock { $0.contains(name) }
    }

    private static func isRouteShaped(_ segment: Substring) -> Bool {
        segment.count <= 32
            && segment.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
