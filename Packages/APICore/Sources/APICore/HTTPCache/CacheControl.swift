import Foundation
import HTTPTypes

/// The `Cache-Control` directives a private cache acts on (RFC 9111 §5.2). Unknown directives are
/// ignored; `s-maxage` and `proxy-revalidate` concern shared caches only.
struct CacheControl: Sendable, Hashable {
    var maxAge: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPrivate = false
    var isPublic = false

    init(_ fields: HTTPFields) {
        for value in fields[values: .cacheControl] {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                guard let rawName = parts.first else { continue }
                let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
                let argument = parts.count > 1
                    ? parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    : nil
                switch name {
                case "max-age":
                    // A malformed max-age makes the response stale (RFC 9111 §4.2.1).
                    let seconds = argument.flatMap { DeltaSeconds.parse($0) }
                    maxAge = maxAge.map { min($0, seconds ?? 0) } ?? (seconds ?? 0)
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                case "private": isPrivate = true
                case "public": isPublic = true
                default: break
                }
            }
        }
    }
}
