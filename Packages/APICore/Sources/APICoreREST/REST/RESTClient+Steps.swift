import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

// The steps of one REST request: prepare the URL and credentials, exchange with the network
// (coalesced, retried, revalidated), store, and turn the exchange into a typed response.
extension RESTClient {

    func prepare<R>(_ request: APIRequest<R>) async throws(APIError) -> Prepared {
        let urlString = Self.urlString(base: configuration.baseURL.absoluteString, path: request.path, query: request.query)
        let ownOrigin = try Self.isOwnOrigin(
            path: request.path, url: urlString, base: configuration.baseURL, allowingOthers: request.allowsOtherOrigin)
        // Read before the credentials: a clearing (a logout, another user's sign-in) that ends the session they are of
        // comes after it, so the response to a request sent with them is never stored after that clearing.
        let generation = cache.generation
        let credentials = await configuration.tokenProvider?.currentCredentials()
        if let owner = request.owner, credentials?.userId != owner { throw .sessionChanged }
        var fields = request.headerFields
        // The session's credentials go to the client's own origin only (security review two, finding 1).
        if let credentials, ownOrigin { fields[.authorization] = "Bearer \(credentials.accessToken)" }
        if let key = request.idempotencyKey, let name = HTTPField.Name("Idempotency-Key") { fields[name] = key }
        let scope = request.cacheable?.scope(forUser: credentials?.userId) ?? CacheScope(userId: credentials?.userId)
        return Prepared(
            urlString: urlString, key: HTTPCache.key(forURL: urlString), requester: credentials?.userId,
            scope: scope, fields: fields, sentTokenOf: ownOrigin ? credentials?.userId : nil, generation: generation)
    }

    /// Whether a request for `path` (sent to `url`) goes to the origin of `base`. A relative path always
    /// does (it is appended to the base); an absolute URL on another origin is refused unless `allowingOthers`.
    static func isOwnOrigin(path: String, url: String, base: URL, allowingOthers: Bool) throws(APIError) -> Bool {
        guard path.hasPrefix("http://") || path.hasPrefix("https://") else { return true }
        if let origin = URLOrigin(url), origin == URLOrigin(base) { return true }
        guard allowingOthers else {
            throw .invalidRequest(reason: "The address is not on the app's server, and the request does not allow another one.")
        }
        return false
    }

    /// The request's absolute URL as text: the base, the path, and the query items percent-encoded
    /// in order. Built by hand because it is on the cache-hit path (URLComponents costs microseconds).
    static func urlString(base: String, path: String, query: [URLQueryItem]) -> String {
        var text: String
        if path.hasPrefix("http://") || path.hasPrefix("https://") {
            text = path
        } else {
            text = base.hasSuffix("/") ? String(base.dropLast()) : base
            if !path.hasPrefix("/") { text += "/" }
            text += path
        }
        guard !query.isEmpty else { return text }
        text += text.contains("?") ? "&" : "?"
        for (index, item) in query.enumerated() {
            if index > 0 { text += "&" }
            text += item.name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? item.name
            if let value = item.value {
                text += "=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value)
            }
        }
        return text
    }

    /// RFC 3986's unreserved characters: everything else in a query name or value is percent-encoded.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Runs the network step once for identical concurrent requests. A `Set-Cookie` goes only to the
    /// request that fetched: one that joined its fetch gets the response without it (a cookie answers
    /// one request; through `mib proxy`, the joiner may be another caller without credentials).
    func fetch<R>(_ request: APIRequest<R>, _ prepared: Prepared, conditional: StoredResponse?, store: Bool)
        async throws(APIError) -> Exchange
    {
        guard let requestKey = Self.coalescingKey(prepared.fields) else {
            return try await exchange(request, prepared, conditional: conditional, store: store)
        }
        let flightKey = [
            prepared.key, prepared.requester ?? "", store ? "store" : "transient",
            conditional?.eTag ?? "", conditional?.lastModified ?? "", requestKey,
        ].joined(separator: "\u{1F}")
        let fetched = Locked(false)
        var shared = try await inFlight.run(flightKey) { () async throws(APIError) -> Exchange in
            fetched.withLock { $0 = true }
            return try await self.exchange(request, prepared, conditional: conditional, store: store)
        }
        if !fetched.withLock({ $0 }) { shared.headerFields[.setCookie] = nil }
        return shared
    }

    /// `Pragma`, HTTP/1.0's `no-cache` (a valid name, built once rather than on every send).
    static let pragma = HTTPField.Name("Pragma")

    /// Request fields that never change the response, so requests differing only in them may share
    /// one fetch: connection management, tracing and the client's identification.
    static let fieldsIgnoredForCoalescing: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "via",
        "user-agent", "traceparent", "tracestate", "x-request-id", "content-length", "host",
    ]

    /// Request fields that make a request its own: the caller's validators and ranges ask for a
    /// response that depends on what the caller holds (a 304, a 206), never to be handed to another.
    static let fieldsThatNeverCoalesce: Set<HTTPField.Name> = [
        .ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange, .range,
    ]

    /// What two concurrent requests for one URL must share to be merged into one fetch: every
    /// request field (names lower-cased, values as sent, in order) but those in
    /// ``fieldsIgnoredForCoalescing`` — before the response is known, any other field may be one it
    /// varies on (`Accept-Language`, `Accept`, `Authorization`, `Cookie`). `nil` for a request that
    /// must go on its own (``fieldsThatNeverCoalesce``).
    static func coalescingKey(_ fields: HTTPFields) -> String? {
        var parts: [String] = []
        for field in fields {
            if fieldsThatNeverCoalesce.contains(field.name) { return nil }
            let name = field.name.canonicalName
            guard !fieldsIgnoredForCoalescing.contains(name) else { continue }
            parts.append(name + ":" + field.value)
        }
        return parts.sorted().joined(separator: "\u{1E}")
    }

    func exchange<R>(_ request: APIRequest<R>, _ prepared: Prepared, conditional: StoredResponse?, store: Bool)
        async throws(APIError) -> Exchange
    {
        let generation = prepared.generation
        var fields = prepared.fields
        if let conditional {
            // The validation is the cache's own: a caller's conditions (a client of `mib proxy` with its own
            // `If-None-Match`) are left out, so the server's 304 speaks of the stored response.
            fields[.ifNoneMatch] = nil
            fields[.ifModifiedSince] = nil
            if let eTag = conditional.eTag { fields[.ifNoneMatch] = eTag }
            if let lastModified = conditional.lastModified { fields[.ifModifiedSince] = lastModified }
        }
        let url = try prepared.url()
        let requestTime = environment.clock.now()
        let response = try await sender.send(
            TransportRequest(
                method: request.method, url: url, headerFields: fields, body: request.body,
                timeout: request.timeout ?? configuration.requestTimeout),
            idempotent: true, requester: prepared.sentTokenOf, endpoint: EndpointTemplate.of(path: url.path))
        let responseTime = environment.clock.now()
        if response.status == 304, let conditional {
            // A 304 naming another representation updates nothing (RFC 9111 §4.3.4): asked again without the cache's
            // conditions (a caller's own go as sent, so a `mib proxy` client may still get its 304).
            guard conditional.isSelected(byNotModified: response.headerFields) else {
                return try await exchange(request, prepared, conditional: nil, store: store)
            }
            let merged = conditional.merging(
                notModified: response.headerFields, requestTime: requestTime,
                responseTime: responseTime)
            if store {
                cache.store(
                    merged, forKey: prepared.key,
                    metadata: cache.metadata(
                        for: merged, cacheable: request.cacheable, feature: request.feature,
                        scope: prepared.scope),
                    uplifted: request.cacheable?.isUplifted ?? false, startedIn: generation)
            }
            cache.metrics(feature: request.feature)
                .recordRevalidation(bytesSaved: conditional.body.count)
            // The caller gets the 304's own cookie, never the stored one (issued to an earlier request).
            var returned = merged.headerFields
            returned[.setCookie] = nil
            returned.append(contentsOf: response.headerFields.filter { $0.name == .setCookie })
            return Exchange(
                status: merged.status, headerFields: returned, body: merged.body,
                source: .revalidated, decoded: try? request.decode(merged.body))
        }
        // Any final response the headers allow is stored, whatever its status (RFC 9111 §3); a
        // success only when it decodes. A caller still receives a non-2xx as its typed error.
        let isSuccess = (200..<300).contains(response.status)
        let decoded = isSuccess ? try? request.decode(response.body) : nil
        let stored = StoredResponse(
            status: response.status, headerFields: response.headerFields, body: response.body,
            requestTime: requestTime, responseTime: responseTime, requestFields: fields, secret: cache.secret)
        let declared =
            request.cacheable?.timeout != nil && [200, 203].contains(response.status)
            && !stored.cacheControl.noStore
        if store, decoded != nil || !isSuccess, declared || stored.isStorableByHeaders {
            cache.store(
                stored, forKey: prepared.key,
                metadata: cache.metadata(
                    for: stored, cacheable: request.cacheable, feature: request.feature,
                    scope: prepared.scope),
                uplifted: request.cacheable?.isUplifted ?? false, startedIn: generation)
            cache.metrics(feature: request.feature).recordWrite()
        }
        return Exchange(
            status: response.status, headerFields: response.headerFields, body: response.body,
            source: .network, decoded: decoded)
    }

    /// Sends a request that is never cached nor de-duplicated; a successful unsafe one invalidates
    /// what it touched.
    /// Sends a queued mutation with its idempotency key, if the signed-in user is `owner`; returns the
    /// answer's body, or `nil` when it was not sent (never with another user's token).
    package func sendQueued(
        method: HTTPRequest.Method, path: String, headerFields: HTTPFields, body: Data?,
        idempotencyKey: String, owner: String
    ) async throws(APIError) -> Data? {
        let request = APIRequest<Data>(
            method: method, path: path, headerFields: headerFields, body: body,
            feature: "mutations", idempotencyKey: idempotencyKey)
        let prepared = try await prepare(request)
        guard prepared.requester == owner else { return nil }
        return try await sendUncached(request, prepared).value
    }

    func sendUncached<R>(_ request: APIRequest<R>, _ prepared: Prepared) async throws(APIError) -> APIResponse<R> {
        let idempotent = [.head, .put, .delete, .options, .trace].contains(request.method) || request.idempotencyKey != nil
        let url = try prepared.url()
        let requestTime = environment.clock.now()
        let response = try await sender.send(
            TransportRequest(
                method: request.method, url: url, headerFields: prepared.fields, body: request.body,
                timeout: request.timeout ?? configuration.requestTimeout),
            idempotent: idempotent, requester: prepared.sentTokenOf, endpoint: EndpointTemplate.of(path: url.path))
        if (200..<400).contains(response.status), ![.head, .options, .trace].contains(request.method) {
            cache.invalidate(prepared.key)
            for name in [HTTPField.Name.location, .contentLocation] {
                guard let value = response.headerFields[name],
                    let target = URL(string: value, relativeTo: url)?.absoluteURL,
                    URLOrigin(target) == URLOrigin(url)
                else { continue }
                cache.invalidate(HTTPCache.key(for: target))
            }
            storeIfReusable(response, of: request, prepared, url: url, requestTime: requestTime)
        }
        return try self.response(
            from: Exchange(status: response.status, headerFields: response.headerFields, body: response.body, source: .network),
            for: request)
    }

    /// A POST's response that says it is the representation of its own URL (`Content-Location` equal to
    /// the request's URL) and has explicit freshness is stored as that URL's response, so a later GET
    /// may reuse it (RFC 9111 §4, the suite's `method-POST`). Any other unsafe method's response is not.
    private func storeIfReusable<R>(
        _ response: TransportResponse, of request: APIRequest<R>, _ prepared: Prepared, url: URL, requestTime: Date
    ) {
        guard request.method == .post, (200..<300).contains(response.status),
            let location = response.headerFields[.contentLocation],
            URL(string: location, relativeTo: url)?.absoluteURL.absoluteString == url.absoluteString
        else { return }
        let stored = StoredResponse(
            status: response.status, headerFields: response.headerFields, body: response.body, requestTime: requestTime,
            responseTime: environment.clock.now(), requestFields: prepared.fields, secret: cache.secret)
        guard stored.hasExplicitFreshness, stored.isStorableByHeaders else { return }
        cache.store(
            stored, forKey: prepared.key,
            metadata: cache.metadata(for: stored, cacheable: nil, feature: request.feature, scope: prepared.scope),
            uplifted: false, startedIn: cache.generation(afterOwnInvalidationsSince: prepared.generation))
    }

    func refreshInBackground<R>(_ request: APIRequest<R>, _ prepared: Prepared, conditional: StoredResponse) {
        Task {
            do {
                _ = try await self.fetch(request, prepared, conditional: conditional.hasValidators ? conditional : nil, store: true)
            } catch {
                self.environment.logger.debug(
                    "Background refresh failed",
                    metadata: ["key": "\(RedactedKey(prepared.key))", "error": "\(error)"])
            }
        }
    }

    /// Turns an exchange into the caller's typed response or error.
    func response<R>(from exchange: Exchange, for request: APIRequest<R>) throws(APIError) -> APIResponse<R> {
        guard (200..<300).contains(exchange.status) || request.returnsAnyStatus else {
            throw APIError(status: exchange.status, body: exchange.body)
        }
        let value: R
        if let decoded = exchange.decoded as? R {
            value = decoded
        } else {
            value = try request.decode(exchange.body)
        }
        return APIResponse(
            value: value, source: exchange.source, freshness: .fetched(at: environment.clock.now()),
            status: exchange.status,
            headerFields: exchange.headerFields)
    }
}
