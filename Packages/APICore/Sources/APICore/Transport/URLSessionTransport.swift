import CacheKit
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: Foundation's `URLSession` (`FoundationNetworking` on Linux) with its own
/// cache, cookies and credential storage switched off, so `RESTClient`'s HTTP cache alone decides
/// what is stored and revalidated (on Linux `URLCache` neither stores nor revalidates anyway, and a
/// 304 reaches the caller as is).
public final class URLSessionTransport: HTTPTransport {
    private let followsRedirects: Bool
    private let sleeper: any Sleeper
    private let maximumResponseBytes: Int
    /// Made on the first request: building an ephemeral configuration and its session takes a fifth
    /// of a millisecond, which a relaunch would otherwise pay before its first screen.
    private let made = Locked<URLSession?>(nil)

    /// Creates a transport with an ephemeral session whose caching is off.
    ///
    /// - Parameters:
    ///   - followsRedirects: whether a 3xx with a `Location` is followed (the default, as apps
    ///     expect) or returned as is, as an HTTP intermediary such as `mib proxy` must. A followed redirect
    ///     never carries credentials away: see ``RedirectRule``.
    ///   - sleeper: what measures each request's timeout (``TransportRequest/timeout``); tests pass
    ///     one they control instead of real time.
    ///   - maximumResponseBytes: the largest body accepted (64 MiB by default); past it the request fails with
    ///     ``TransportError/responseTooLarge(limit:)``, at once when its `Content-Length` says so.
    public init(followsRedirects: Bool = true, sleeper: any Sleeper = TaskSleeper(), maximumResponseBytes: Int = 64 << 20) {
        self.followsRedirects = followsRedirects
        self.sleeper = sleeper
        self.maximumResponseBytes = maximumResponseBytes
    }

    deinit {
        made.withLock { $0 }?.finishTasksAndInvalidate()
    }

    /// The session, made on first use.
    private var session: URLSession {
        made.withLock { made in
            if let made { return made }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCredentialStorage = nil
            let session = URLSession(
                configuration: configuration, delegate: RedirectDelegate(follows: followsRedirects), delegateQueue: nil)
            made = session
            return session
        }
    }

    /// Sends the request with `URLSession`, mapping `URLError`s to ``TransportError``.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpBody = request.body
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        // URLSession on Linux rounds `timeoutInterval` down to whole seconds (0.3 s times out at
        // once), so the timeout is enforced here and URLSession's only backs it up, with a margin a loaded
        // machine never reaches (2 s was: a 0.3 s request on two busy cores timed out at URLSession's 2 s).
        let timeout = request.timeout.components
        urlRequest.timeoutInterval = Double(timeout.seconds) + 30
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        let prepared = urlRequest
        let limit = request.timeout
        let sleeper = sleeper
        do {
            return try await withThrowingTaskGroup(of: TransportResponse.self) { group in
                group.addTask { try await self.perform(prepared) }
                group.addTask {
                    try await sleeper.sleep(for: limit)
                    throw TransportError.timedOut
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw TransportError.cancelled }
                return first
            }
        } catch let error as TransportError {
            throw error
        } catch let error as URLError {
            throw Self.map(error)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .other(reason: "\(error)")
        }
    }

    private func perform(_ urlRequest: URLRequest) async throws -> TransportResponse {
        let (data, response) = try await exchange(urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw TransportError.other(reason: "not an HTTP response")
        }
        guard data.count <= maximumResponseBytes else { throw TransportError.responseTooLarge(limit: maximumResponseBytes) }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), let value = value as? String else {
                continue
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return TransportResponse(status: http.statusCode, headerFields: fields, body: data)
    }

    #if canImport(FoundationNetworking)
        /// `URLSession.data(for:)` on Linux cancels its task from the cancelling thread while holding the
        /// Swift task's status lock, and waits there for URLSession's work queue; the queue, completing the
        /// same request, waits for that lock to resume the task: both wait for ever
        /// (swift-corelibs-foundation #5412), and a sync's deadline cancels requests in flight. Here the
        /// data task is cancelled from another thread, which holds no lock of the task.
        private func exchange(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
            let session = self.session
            let state = Locked<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                    let task = session.dataTask(with: urlRequest) { data, response, error in
                        if let data, let response {
                            continuation.resume(returning: (data, response))
                        } else {
                            continuation.resume(throwing: error ?? URLError(.badServerResponse))
                        }
                    }
                    let cancelled = state.withLock { state in
                        state.task = task
                        return state.cancelled
                    }
                    task.resume()
                    if cancelled { Self.cancelLater(task) }
                }
            } onCancel: {
                let task = state.withLock { state in
                    state.cancelled = true
                    return state.task
                }
                if let task { Self.cancelLater(task) }
            }
        }

        private static func cancelLater(_ task: URLSessionDataTask) {
            DispatchQueue.global().async { task.cancel() }
        }
    #else
        private func exchange(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
            try await session.data(for: urlRequest)
        }
    #endif

    static func map(_ error: URLError) -> TransportError {
        switch error.code {
        case .timedOut:
            .timedOut
        case .cancelled:
            .cancelled
        case .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
            .internationalRoamingOff, .dataNotAllowed:
            .offline(reason: error.localizedDescription)
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource:
            .connectionLost(reason: error.localizedDescription)
        default:
            .other(reason: "\(error.code.rawValue): \(error.localizedDescription)")
        }
    }
}

/// Applies ``RedirectRule`` to every redirect, or declines them all (the 3xx response itself is returned).
private final class RedirectDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let follows: Bool

    init(follows: Bool) {
        self.follows = follows
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard follows, let original = task.originalRequest?.url ?? response.url else { return completionHandler(nil) }
        completionHandler(RedirectRule.follow(request, from: original))
    }
}

/// What a followed redirect may carry (security review, finding 3). Foundation copies every header of the
/// original request to the `Location`, `Authorization` included, whatever its host or scheme. So:
/// - to the same origin (``URLOrigin``: scheme, host and port): followed as is;
/// - to another origin: followed **without** `Authorization`, `Proxy-Authorization` and `Cookie`, and only
///   as a `GET` or `HEAD` without a body: a 307 or 308 of a request with a body (a login's password, a
///   mutation) stops at the 3xx, so the body never reaches the other origin;
/// - from `https` to `http`: refused, the 3xx is returned (nothing is sent in clear text).
///
/// `PinnedTransport` (APICorePinning) never follows redirects.
public enum RedirectRule {
    /// The credentials a redirect to another origin drops.
    public static let credentialFields = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// `redirect` as it may be sent after a request to `original`, or `nil` to stop at the 3xx. To another
    /// origin only a `GET` or `HEAD` without a body goes on (a 307 or 308 keeps the method, so a POST's
    /// redirect stops here whether or not Foundation shows its body).
    public static func follow(_ redirect: URLRequest, from original: URL) -> URLRequest? {
        guard let target = redirect.url else { return nil }
        if original.scheme?.lowercased() == "https" && target.scheme?.lowercased() != "https" { return nil }
        guard let targetOrigin = URLOrigin(target), targetOrigin != URLOrigin(original) else { return redirect }
        let method = redirect.httpMethod?.uppercased() ?? "GET"
        let carriesBody = redirect.httpBody != nil || redirect.httpBodyStream != nil
        guard ["GET", "HEAD"].contains(method), !carriesBody else { return nil }
        var stripped = redirect
        for field in credentialFields { stripped.setValue(nil, forHTTPHeaderField: field) }
        return stripped
    }
}
