import APICore
import CacheKit
import Foundation
import HTTPTypes

// A 304 and the stored response it updates (RFC 9111 §4.3.4).
extension StoredResponse {
    /// Whether a 304 with `fields` speaks of this response, so it may update it (RFC 9111 §4.3.4): a strong `ETag` in
    /// it must be this response's own, a weak one must match this one's weakly, and a `Last-Modified` in it must be
    /// this response's. A 304 with no validator speaks of the one response the cache asked about.
    func isSelected(byNotModified fields: HTTPFields) -> Bool {
        if let tag = fields[.eTag]?.trimmingCharacters(in: .whitespaces) {
            guard let own = eTag?.trimmingCharacters(in: .whitespaces) else { return false }
            if !tag.hasPrefix("W/") { return own == tag }
            return (own.hasPrefix("W/") ? own.dropFirst(2) : own[...]) == tag.dropFirst(2)
        }
        if let modified = fields[.lastModified] { return lastModified == modified }
        return true
    }

    /// The response updated by a 304 (RFC 9111 §4.3.4): the 304's fields replace the stored ones of
    /// the same name, except `Content-Length`, and the age is measured from the 304.
    /// The stored `Age` and `Date` describe the old response: a 304 without them leaves the response
    /// as old as the 304 itself, so they are dropped rather than kept (a stale `Date` would make the
    /// revalidated response look old at once).
    func merging(notModified fields: HTTPFields, requestTime: Date, responseTime: Date) -> StoredResponse {
        var merged = self
        let replaced = Set(fields.map(\.name)).subtracting([.contentLength, .transferEncoding, .setCookie])
            .union([.age, .date])
        merged.headerFields = HTTPFields(
            headerFields.filter { !replaced.contains($0.name) }
                + fields.filter { replaced.contains($0.name) })
        merged.requestTime = requestTime
        merged.responseTime = responseTime
        return merged
    }
}
