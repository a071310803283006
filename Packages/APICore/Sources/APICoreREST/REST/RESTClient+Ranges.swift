import APICore
import Foundation
import HTTPTypes

// A `Range` request answered from a stored complete response (RFC 9110 §14), for an HTTP intermediary.
extension RESTClient {
    /// Answers a GET with a `Range` from a fresh stored complete response, when there is one: a single
    /// range (`bytes=2-4`, `bytes=7-`, `bytes=-3`) is a 206 with its `Content-Range`; several ranges, or
    /// one that cannot be read, are answered with the whole 200 (RFC 9110 §14.2 lets a cache ignore
    /// `Range`). `nil` when this does not apply: nothing fresh is stored (the origin answers the range),
    /// or the range starts past the end, or the request asks for validation or carries `If-Range` or
    /// another condition; the usual path then answers, from the cache with the whole response (the
    /// `Range` ignored) or from the origin.
    func rangeFromCache(url: String, headerFields: HTTPFields) async -> APIResponse<Data>? {
        guard let range = headerFields[.range],
            !headerFields.contains(where: { Self.fieldsThatKeepARangeAtTheOrigin.contains($0.name) })
        else { return nil }
        var whole = headerFields
        whole[.range] = nil
        var request = APIRequest<Data>(method: .get, path: url, headerFields: whole, feature: "proxy")
        request.returnsAnyStatus = true
        guard var response = try? await send(request, policy: .returnCacheDataDontFetch), response.status == 200 else {
            return nil
        }
        let length = response.value.count
        guard let (first, last) = ByteRange.single(range, length: length) else {
            return ByteRange.isSatisfiable(range, length: length) ? response : nil
        }
        response.status = 206
        response.value = response.value.subdata(in: first..<(last + 1))
        response.headerFields[.contentRange] = "bytes \(first)-\(last)/\(length)"
        response.headerFields[.contentLength] = String(last + 1 - first)
        return response
    }

    /// Request fields that send a `Range` request to the origin: validation asked for, or a condition
    /// on what the caller holds.
    static let fieldsThatKeepARangeAtTheOrigin: Set<HTTPField.Name> = [
        .cacheControl, .ifRange, .ifMatch, .ifNoneMatch, .ifModifiedSince, .ifUnmodifiedSince,
        HTTPField.Name("Pragma") ?? .cacheControl,
    ]
}

/// A `Range` field's byte ranges (RFC 9110 §14.1.2), against a representation of `length` bytes.
enum ByteRange {
    /// The first and last byte of a single satisfiable range, clamped to the representation; `nil`
    /// for several ranges, an unsatisfiable one, or a field that does not parse.
    static func single(_ field: String, length: Int) -> (Int, Int)? {
        let specs = specifications(field)
        guard specs.count == 1, let spec = specs.first, let range = bounds(spec, length: length) else { return nil }
        return range
    }

    /// Whether at least one range could be served, or the field is ignored (several ranges, or no
    /// `bytes=`): then the whole response answers it.
    static func isSatisfiable(_ field: String, length: Int) -> Bool {
        let specs = specifications(field)
        guard !specs.isEmpty else { return true }
        return specs.contains { bounds($0, length: length) != nil } || specs.count > 1
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
            text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) && !text.isEmpty && text.count < 19 ? Int(text) : nil
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
