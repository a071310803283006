import Foundation

/// Request paths built from segments, each percent-encoded in this one place (security review two,
/// finding 10): a value put in a path (an id, a slug) stays one segment whatever it holds, so an id with
/// `/`, `?`, `#`, `%` or `..` can never change the route.
///
/// ```swift
/// APIRequest<Contact>(path: PathSegments.path("contacts", contactId, "enrichment"))
/// // "/contacts/a%2Fb%3Fc/enrichment" for the id "a/b?c"
/// ```
public enum PathSegments {
    /// `/` and each segment, percent-encoded, joined by `/`.
    public static func path(_ segments: String...) -> String {
        "/" + segments.map(encode).joined(separator: "/")
    }

    /// Whether `path`, from server data (a photo's address), is a path on the app's own server (`/avatars/c1.png`),
    /// not an absolute URL, a `//host` one or a relative one: what a kit loads such an address by.
    public static func isServerPath(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.hasPrefix("//")
    }

    /// `segment` with every character but RFC 3986's unreserved ones percent-encoded; a segment of dots only
    /// (`.`, `..`) has its dots encoded too, so no URL resolution can read it as a step up.
    public static func encode(_ segment: String) -> String {
        if !segment.isEmpty, segment.allSatisfy({ $0 == "." }) { return String(repeating: "%2E", count: segment.count) }
        return segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
