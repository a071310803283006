import APICore
import Foundation
import HTTPTypes

/// The `Cache-Control` directives a private cache acts on (RFC 9111 §5.2, RFC 5861), of a response
/// or of a request. Unknown directives are ignored; `s-maxage` and `proxy-revalidate` concern shared
/// caches only. Every number is delta-seconds (``DeltaSeconds``); a malformed one counts as 0.
struct CacheControl: Sendable, Hashable {
    var maxAge: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPrivate = false
    var isPublic = false
    /// Response: store only if the cache understands the status; then `no-store` is ignored.
    var mustUnderstand = false
    /// Request: a stale response is acceptable, by at most this many seconds (2^31 without a value).
    var maxStale: Int?
    /// Request: the response must stay fresh for at least this many more seconds.
    var minFresh: Int?
    /// Request: answer from the cache or with a 504, never from the origin.
    var onlyIfCached = false
    /// Response: may be served stale this long while it is revalidated in the background.
    var staleWhileRevalidate: Int?
    /// Response: may be served stale this long when revalidation fails (an error or a 5xx).
    var staleIfError: Int?
    /// Response: the representation never changes while fresh (RFC 8246), so a reload does not revalidate it.
    var immutable = false

    init(_ fields: HTTPFields) {
        for value in fields[values: .cacheControl] {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                guard let rawName = parts.first else { continue }
                let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
                let argument =
                    parts.count > 1
                    ? parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    : nil
                switch name {
                case "max-age":
                    // A malformed max-age makes the response stale (RFC 9111 §4.2.1).
                    let seconds = argument.flatMap { DeltaSeconds.parse($0) }
                    maxAge = maxAge.map { min($0, seconds ?? 0) } ?? (seconds ?? 0)
                case "max-stale":
                    maxStale = argument.map { DeltaSeconds.parse($0) ?? 0 } ?? DeltaSeconds.maximum
                case "min-fresh": minFresh = argument.flatMap { DeltaSeconds.parse($0) } ?? 0
                case "only-if-cached": onlyIfCached = true
                case "stale-while-revalidate": staleWhileRevalidate = argument.flatMap { DeltaSeconds.parse($0) } ?? 0
                case "stale-if-error": staleIfError = argument.flatMap { DeltaSeconds.parse($0) } ?? 0
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                case "private": isPrivate = true
                case "public": isPublic = true
                case "must-understand": mustUnderstand = true
                case "immutable": immutable = true
                default: break
                }
            }
        }
    }
}
