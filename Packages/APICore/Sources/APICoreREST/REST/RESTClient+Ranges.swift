import APICore
import Foundation
import HTTPTypes

// A `Range` request answered from a stored complete response (RFC 9110 §14), for an HTTP intermediary.
extension RESTClient {
    /// Answers a GET with a single byte range (`bytes=2-4`, `bytes=7-`, `bytes=-3`) from a fresh stored
    /// complete response: a 206 with its `Content-Range`. `nil` when this does not apply, and the usual
    /// path answers instead: from the cache with the whole response (several ranges, one that does not
    /// parse or starts past the end, a request asking for validation or carrying `If-Range` or another
    /// condition: RFC 9110 §14.2 lets a cache ignore `Range`), or from the origin when nothing fresh is
    /// stored.
    func rangeFromCache(url: String, headerFields: HTTPFields) async -> APIResponse<Data>? {
        guard let range = headerFields[.range],
            !headerFields.contains(where: { Self.fieldsThatDeclineACachedRange.contains($0.name) })
        else { return nil }
        var whole = headerFields
        whole[.range] = nil
        var request = APIRequest<Data>(method: .get, path: url, headerFields: whole, feature: "proxy")
        request.returnsAnyStatus = true
        guard var response = try? await send(request, policy: .returnCacheDataDontFetch), response.status == 200,
            let (first, last) = ByteRange.single(range, length: response.value.count)
        else { return nil }
        let length = response.value.count
        response.status = 206
        response.value = response.value.subdata(in: first..<(last + 1))
        response.headerFields[.contentRange] = "bytes \(first)-\(last)/\(length)"
        response.headerFields[.contentLength] = String(last + 1 - first)
        return response
    }

    /// Request fields that leave a `Range` to the usual path: validation asked for, or a condition on
    /// what the caller holds (the fields that already keep a request from sharing a fetch).
    static let fieldsThatDeclineACachedRange: Set<HTTPField.Name> =
        fieldsThatNeverCoalesce
        .subtracting([.range]).union([.cacheControl] + (pragma.map { [$0] } ?? []))
}

/// A `Range` field's byte ranges (RFC 9110 §14.1.2), against a representation of `length` bytes.
enum ByteRange {
    /// The first and last byte of a single satisfiable range, clamped to the representation; `nil`
    /// for several ranges, an unsatisfiable one, or a field that does not parse.
    static func single(_ field: String, length: Int) -> (Int, Int)? {
        let specs = specifications(field)
        return specs.count == 1 ? bounds(specs[0], length: length) : nil
    }

    private static func specifications(_ field: String) -> [Substring] {
        let trimmed = field.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return [] }
        return trimmed.dropFirst("bytes=".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)[...] }
    }

    private static func bounds(_ spec: Substring, length: Int) -> (Int, Int)? {
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, length > 0 else { return nil }
        let digits: (Substring) -> Int? = { text in
            !text.isEmpty && text.count < 19 && text.allSatisfy { $0.isASCII && $0.isNumber } ? Int(text) : nil
        }
        if parts[0].isEmpty {
            guard let suffix = digits(parts[1]), suffix > 0 else { return nil }
            return (max(0, length - suffix), length - 1)
        }
        guard let first = digits(parts[0]), first < length else { return nil }
        if parts[1].isEmpty { return (first, length - 1) }
        guard let last = digits(parts[1]), last >= first else { return nil }
        return (first, min(last, length - 1))
    }
}
