import Foundation
import HTTPTypes

/// The `Retry-After` header of a 429 or 503 (RFC 9110 §10.2.3): delta-seconds or an HTTP-date, read
/// against the app's clock. A date in the past is no wait; anything else unreadable is ignored.
enum RetryAfter {
    static let field = HTTPField.Name("Retry-After")

    /// The wait `fields` ask for, or `nil` when they ask for none readable.
    static func delay(in fields: HTTPFields, now: Date) -> Duration? {
        guard let field, let value = fields[field]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = DeltaSeconds.parse(value) { return .seconds(seconds) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .milliseconds(Int64((max(0, date.timeIntervalSince(now)) * 1_000).rounded(.up)))
    }
}
