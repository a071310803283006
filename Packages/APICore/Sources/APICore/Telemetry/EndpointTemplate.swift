import Foundation

/// An endpoint as telemetry names it: the path's template, with every segment that could identify a
/// person or a record replaced by `{id}` and no query at all (REQ OBS-1). `/api/accounts/1002/transactions?after=x`
/// becomes `/api/accounts/{id}/transactions`; `/users/alice@example.com` becomes `/users/{id}`.
///
/// A segment is kept only when it reads like a route name: lowercase letters, `-` and `_`, at most 32
/// characters, no digit. Everything else (numbers, UUIDs, e-mails, tokens, names with capitals) is `{id}`,
/// so no value reaches a sink whatever the route.
public enum EndpointTemplate {
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
        segment.count <= 32
            && segment.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
