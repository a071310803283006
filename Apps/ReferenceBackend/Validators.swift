import Foundation
import HTTPTypes
import Hummingbird

/// A resource's validators and the conditional-request rules of RFC 9110: `If-None-Match` first
/// (weak comparison, `*`, lists), then `If-Modified-Since` when no `If-None-Match` was sent.
struct Validators {
    var eTag: String
    var lastModified: Date?

    /// The response fields every answer for this resource carries.
    func fields(cacheControl: String) -> HTTPFields {
        var fields: HTTPFields = [.cacheControl: cacheControl, .eTag: eTag]
        if let lastModified { fields[.lastModified] = HTTPDateFormat.string(lastModified) }
        return fields
    }

    /// A 304 when the request's validators match, else `nil`.
    func notModified(_ request: Request, cacheControl: String) -> Response? {
        if let condition = request.headers[.ifNoneMatch] {
            let tags = condition.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let strip = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            guard tags.contains("*") || tags.contains(where: { strip($0) == strip(eTag) }) else { return nil }
            return Response(status: .notModified, headers: fields(cacheControl: cacheControl))
        }
        if let since = request.headers[.ifModifiedSince].flatMap(HTTPDateFormat.date(from:)), let lastModified,
            lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        {
            return Response(status: .notModified, headers: fields(cacheControl: cacheControl))
        }
        return nil
    }
}

/// HTTP dates in the IMF-fixdate form, `Mon, 13 Jan 2026 14:24:29 GMT`.
public enum HTTPDateFormat {
    /// `date` as an IMF-fixdate.
    public static func string(_ date: Date) -> String {
        formatter().string(from: date)
    }

    static func date(from text: String) -> Date? {
        formatter().date(from: text)
    }

    /// A formatter per call: `DateFormatter` is not safe to share between threads.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}

/// `2026-01-13T14:24:29Z`, the ETags' timestamp.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
