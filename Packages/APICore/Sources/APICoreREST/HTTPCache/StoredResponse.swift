import APICore
import CacheKit
import Foundation
import HTTPTypes

/// A response as the HTTP cache keeps it: status, header fields, body, when it was requested and
/// received (for RFC 9111 age), and a keyed hash of the request's values of the fields its `Vary` names.
///
/// Nothing it writes to disk can be replayed as a credential (security review, finding 5): a varied value
/// (`Authorization`, `Cookie`, …) is kept as an HMAC under the installation's ``InstallSecret``, never as
/// sent, and `Set-Cookie` lives in the memory tier only: a hit from memory carries it (RFC 9111 §3.1: a
/// cache stores the header fields it received), ``encoded()`` never writes it, so a hit read back from disk
/// after a relaunch has none.
struct StoredResponse: Sendable, Hashable {
    var status: Int
    var headerFields: HTTPFields
    var body: Data
    var requestTime: Date
    var responseTime: Date
    /// Lower-cased field name → the keyed hash of the request's value, for each field `Vary` names; `nil`
    /// without `Vary`. `Vary: *` is stored as `["*": ""]` and never matches.
    var vary: [String: String]?
    /// The URL's other stored variants (RFC 9111 §4.1: a cache may keep several responses for one URL,
    /// each selected by its own request values), most recent first, at most
    /// ``maximumVariants`` − 1; each has none of its own. Empty for a response without `Vary`.
    var otherVariants: [StoredResponse] = []

    /// How many responses one URL keeps, this one included.
    static let maximumVariants = 8

    init(
        status: Int, headerFields: HTTPFields, body: Data, requestTime: Date, responseTime: Date,
        requestFields: HTTPFields, secret: @autoclosure () -> InstallSecret
    ) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        vary = Self.varyValues(names: headerFields[values: .vary], requestFields: requestFields, secret: secret())
    }

    /// This response with `older`'s variants kept beside it: `older` itself and its own variants, when
    /// both vary on the same fields, but not one this response replaces (the same request values), nor
    /// more than ``maximumVariants`` in all. A response without `Vary`, or with `Vary: *`, keeps none.
    func keepingVariants(of older: StoredResponse) -> StoredResponse {
        guard let vary, vary["*"] == nil, let olderVary = older.vary, Set(olderVary.keys) == Set(vary.keys) else { return self }
        var kept = self
        var primary = older
        primary.otherVariants = []
        kept.otherVariants = Array(([primary] + older.otherVariants).filter { $0.vary != vary }.prefix(Self.maximumVariants - 1))
        return kept
    }

    /// The variant stored beside this response that a request with `requestFields` selects, if any
    /// (this response itself is checked with ``matchesVary(_:secret:)``).
    func otherVariant(for requestFields: HTTPFields, secret: @autoclosure () -> InstallSecret) -> StoredResponse? {
        guard !otherVariants.isEmpty else { return nil }
        let key = secret()
        return otherVariants.first { $0.matchesVary(requestFields, secret: key) }
    }

    /// The memory a stored entry takes: its bodies and fields, its variants' included.
    var cost: Int {
        otherVariants.reduce(body.count + 64 * headerFields.count) { $0 + $1.body.count + 64 * $1.headerFields.count }
    }

    var cacheControl: CacheControl { CacheControl(headerFields) }
    var eTag: String? { headerFields[.eTag] }
    var lastModified: String? { headerFields[.lastModified] }
    var hasValidators: Bool { eTag != nil || lastModified != nil }

    /// Whether a request with these fields may be served this response (RFC 9111 §4.1).
    /// The secret is read only for a response that has `Vary`: a plain hit takes no lock and touches no file.
    /// A response varying on `Accept-Language` is also selected by a request whose most preferred language is
    /// the response's one `Content-Language` (the suite's `vary-normalise-lang-select`).
    func matchesVary(_ requestFields: HTTPFields, secret: @autoclosure () -> InstallSecret) -> Bool {
        guard let vary else { return true }
        guard vary["*"] == nil,
            let current = Self.varyValues(names: headerFields[values: .vary], requestFields: requestFields, secret: secret())
        else { return false }
        return current.keys == vary.keys
            && vary.allSatisfy { name, value in
                current[name] == value || (name == "accept-language" && isMostPreferredLanguage(of: requestFields))
            }
    }

    /// Whether this response's one `Content-Language` is the language the request's `Accept-Language` weighs
    /// highest, alone and above 0: the one the server would choose for it (RFC 9110 §12.5.4). A malformed
    /// element or weight (RFC 9110 §12.4.2: `0` to `1` with at most three decimals) selects nothing.
    private func isMostPreferredLanguage(of requestFields: HTTPFields) -> Bool {
        let languages = headerFields[values: .contentLanguage].flatMap { $0.split(separator: ",") }
        guard languages.count == 1, let language = languages.first?.trimmingCharacters(in: .whitespaces).lowercased(), !language.isEmpty
        else { return false }
        var ranges: [(tag: String, weight: Int)] = []
        for element in requestFields[values: .acceptLanguage].flatMap({ $0.split(separator: ",") }) {
            let parts = element.split(separator: ";", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let tag = parts.first, !tag.isEmpty, parts.count <= 2 else { return false }
            var weight = 1_000
            if parts.count == 2 {
                guard parts[1].hasPrefix("q="), let parsed = Self.qualityValue(parts[1].dropFirst(2)) else { return false }
                weight = parsed
            }
            ranges.append((tag, weight))
        }
        guard let best = ranges.map(\.weight).max(), best > 0 else { return false }
        let top = ranges.filter { $0.weight == best }
        return top.count == 1 && top[0].tag == language
    }

    /// A weight in thousandths (`0.5` is 500), or `nil` when it is not one (`1.0x`, `2`, `-1`, `0.1234`).
    private static func qualityValue(_ text: Substring) -> Int? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = pieces.first, whole == "0" || whole == "1" else { return nil }
        let fraction = pieces.count == 2 ? pieces[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        let thousandths = (Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0)
        guard whole == "0" || thousandths == 0 else { return nil }
        return whole == "1" ? 1_000 : thousandths
    }

    /// Whether `stale-if-error` (RFC 5861 §4) lets it answer for a 5xx at `now`.
    func allowsStale(byErrorAt now: Date) -> Bool {
        guard let window = cacheControl.staleIfError, !cacheControl.mustRevalidate, !cacheControl.noCache else { return false }
        return now.timeIntervalSince(headerExpiry) <= TimeInterval(window)
    }

    /// Whether it may be served stale when the server cannot be reached (RFC 9111 §4.2.4).
    var allowsStaleOnError: Bool {
        let directives = cacheControl
        return !directives.mustRevalidate && !directives.noCache
    }

    /// The response's freshness as a caller sees it at `now`: stored (or last validated) at its
    /// response time, aged by RFC 9111 §4.2.3.
    func freshness(_ state: Freshness.State, at now: Date) -> Freshness {
        Freshness(state: state, storedAt: responseTime, age: currentAge(at: now))
    }

    private static func varyValues(
        names: [String], requestFields: HTTPFields, secret: @autoclosure () -> InstallSecret
    ) -> [String: String]? {
        let fieldNames = names.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        guard !fieldNames.isEmpty else { return nil }
        let key = secret()
        var values: [String: String] = [:]
        for name in fieldNames {
            if name == "*" {
                values["*"] = ""
            } else if let fieldName = HTTPField.Name(name) {
                values[name] = key.hash(normalized(requestFields[values: fieldName], of: name))
            }
        }
        return values
    }

    /// The content-negotiation fields whose values are case-insensitive lists.
    private static let negotiationFields: Set<String> = ["accept", "accept-charset", "accept-encoding", "accept-language"]

    /// A request's values of one varied field as compared (RFC 9111 §4.1): the lines joined as one list,
    /// the whitespace around its elements dropped, so `Foo: 1,2`, `Foo:  1, 2 ` and two lines `1` and `2`
    /// select the same stored response; for the negotiation fields, also normalized as their semantics
    /// allow: whitespace removed around parameters, case folded, and the elements sorted, so
    /// `en-US, fr;q=0.5` matches `fr; q=0.5,EN-us`.
    private static func normalized(_ lines: [String], of name: String) -> String {
        guard negotiationFields.contains(name) else {
            return lines.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
                .joined(separator: ",")
        }
        return lines.flatMap { $0.split(separator: ",") }
            .map { element in
                element.split(separator: ";")
                    .map { $0.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\t", with: "").lowercased() }
                    .joined(separator: ";")
            }
            .filter { !$0.isEmpty }
            .sorted()
            .joined(separator: ",")
    }
}

// MARK: Freshness (RFC 9111 §4.2)

extension StoredResponse {
    /// How long the response is fresh from the origin's point of view: `max-age`, else
    /// `Expires − Date`, else 10% of `Date − Last-Modified` (capped at a day) as the heuristic the
    /// RFC allows (RFC 9111 §4.2.2) for a heuristically cacheable status, or any final status the
    /// response marks `public` (a 599 included), else zero.
    var freshnessLifetime: TimeInterval {
        if let maxAge = cacheControl.maxAge { return TimeInterval(maxAge) }
        let date = headerFields[.date].flatMap(HTTPDate.parse) ?? responseTime
        if let expiresField = headerFields[.expires] {
            // An invalid Expires (such as "0") means already expired.
            guard let expires = HTTPDate.parse(expiresField) else { return 0 }
            return max(0, expires.timeIntervalSince(date))
        }
        if Self.heuristicallyCacheable.contains(status) || cacheControl.isPublic,
            let lastModified = headerFields[.lastModified].flatMap(HTTPDate.parse)
        {
            return min(86_400, max(0, date.timeIntervalSince(lastModified)) / 10)
        }
        return 0
    }

    /// The response's age when it was received (RFC 9111 §4.2.3, `corrected_initial_age`).
    var correctedInitialAge: TimeInterval {
        let ageValue = TimeInterval(ageFieldValue ?? 0)
        let apparentAge = headerFields[.date].flatMap(HTTPDate.parse).map { max(0, responseTime.timeIntervalSince($0)) } ?? 0
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        return max(apparentAge, ageValue + responseDelay)
    }

    /// The origin's `Age` (RFC 9111 §5.1): delta-seconds, of the first field line and the first
    /// member of a list ("7200, 0" is 7200; FoundationNetworking joins repeated field lines with a
    /// comma, so this also takes the first line). An invalid value ("7200.0", "1e300") is ignored.
    var ageFieldValue: Int? {
        guard let line = headerFields[values: .age].first,
            let first = line.split(separator: ",", omittingEmptySubsequences: false).first
        else { return nil }
        return DeltaSeconds.parse(first.trimmingCharacters(in: CharacterSet(charactersIn: " \t")))
    }

    /// The response's fields as served from the cache at `now`, with `Age` set to its current age in
    /// whole seconds (RFC 9111 §4.2.3 and §5.1: a cache generates `Age` when it reuses a response).
    func fieldsServed(at now: Date) -> HTTPFields {
        let currentAge = currentAge(at: now)
        var fields = headerFields
        fields[.age] = DeltaSeconds.string(currentAge)
        return fields
    }

    /// When the response stops being fresh by its own headers; `no-cache` makes it stale at once.
    var headerExpiry: Date {
        if cacheControl.noCache { return responseTime }
        return responseTime.addingTimeInterval(max(0, freshnessLifetime - correctedInitialAge))
    }

    /// Whether the headers let a private cache store it (RFC 9111 §3):
    /// - a final status; 206 and 304 never (ranges are not combined; a 304 only updates);
    /// - no `no-store`, unless `must-understand` is present and the status is one this cache
    ///   understands (§5.2.2.3): with `must-understand`, an unknown status is never stored;
    /// - then explicit freshness (`max-age`, `Expires`) or `public`/`private`, whatever the status
    ///   (a 299 or a 599 included); otherwise, for the heuristically cacheable statuses only,
    ///   validators or a heuristic lifetime.
    var isStorableByHeaders: Bool {
        guard status >= 200, status != 206, status != 304 else { return false }
        if cacheControl.mustUnderstand {
            guard Self.understoodStatuses.contains(status) else { return false }
        } else if cacheControl.noStore {
            return false
        }
        if hasExplicitFreshness || cacheControl.isPublic || cacheControl.isPrivate { return true }
        return Self.heuristicallyCacheable.contains(status) && (hasValidators || freshnessLifetime > 0)
    }

    /// `max-age` or `Expires` is present.
    var hasExplicitFreshness: Bool { cacheControl.maxAge != nil || headerFields[.expires] != nil }

    /// How old the response is at `now` (RFC 9111 §4.2.3, `current_age`).
    func currentAge(at now: Date) -> TimeInterval {
        correctedInitialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// The statuses whose semantics this cache implements, for `must-understand`: not 206 (ranges are
    /// never combined) nor 304 (it only updates a stored response).
    static let understoodStatuses: Set<Int> = [
        200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414,
        500, 501, 502, 503, 504,
    ]
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
}
