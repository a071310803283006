import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: Foundation's `URLSession` (`FoundationNetworking` on Linux) with its own
/// cache, cookies and credential storage switched off, so ``RESTClient``'s HTTP cache alone decides
/// what is stored and revalidated (on Linux `URLCache` neither stores nor revalidates anyway, and a
/// 304 reaches the caller as is).
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let sleeper: any Sleeper

    /// Creates a transport with an ephemeral session whose caching is off.
    ///
    /// - Parameters:
    ///   - followsRedirects: whether a 3xx with a `Location` is followed (the default, as apps
    ///     expect) or returned as is, as an HTTP intermediary such as `mib proxy` must.
    ///   - sleeper: what measures each request's timeout (``TransportRequest/timeout``); tests pass
    ///     one they control instead of real time.
    public init(followsRedirects: Bool = true, sleeper: any Sleeper = TaskSleeper()) {
        self.sleeper = sleeper
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        session = URLSession(
            configuration: configuration, delegate: followsRedirects ? nil : RedirectRefusal(),
            delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends the request with `URLSession`, mapping `URLError`s to ``TransportError``.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpBody = request.body
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        // URLSession on Linux rounds `timeoutInterval` down to whole seconds (0.3 s times out at
        // once), so the timeout is enforced here and URLSession's only backs it up.
        let timeout = request.timeout.components
        urlRequest.timeoutInterval = Double(timeout.seconds) + 2
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
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw TransportError.other(reason: "not an HTTP response")
        }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), let value = value as? String else {
                continue
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return TransportResponse(status: http.statusCode, headerFields: fields, body: data)
    }

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

/// Declines every redirect, so the 3xx response itself is returned.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
