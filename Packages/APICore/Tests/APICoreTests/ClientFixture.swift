import APICore
import APICoreREST
import APICoreTestServer
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Logging

/// A REST client wired for tests: a manual clock, a recording sleeper, a token provider the test
/// controls, and a caches directory of its own.
struct ClientFixture {
    let clock = ManualClock()
    let sleeper = RecordingSleeper()
    /// Every line the client logged.
    let logs = LogRecorder()
    let tokens: StaticTokenProvider
    let directory: TemporaryDirectory
    let environment: CacheEnvironment
    let client: RESTClient

    init(
        baseURL: URL, transport: any HTTPTransport = URLSessionTransport(), retry: RetryPolicy = .none,
        credentials: Credentials? = Credentials(accessToken: "token-a", userId: "user-a"),
        directory: TemporaryDirectory? = nil, settings: TimeoutSettings = TimeoutSettings()
    ) throws {
        tokens = StaticTokenProvider(credentials)
        self.directory = try directory ?? TemporaryDirectory()
        environment = CacheEnvironment(
            clock: clock, timeouts: CacheTimeoutPolicy(settings: settings),
            logger: logs.logger(), cachesDirectory: self.directory.url)
        client = RESTClient(
            configuration: .init(
                baseURL: baseURL, transport: transport, environment: environment, tokenProvider: tokens,
                retry: retry, sleeper: sleeper, requestTimeout: TestDeadline.request))
    }

    /// The HTTP-level counts of a feature.
    func counts(feature: String = "rest") -> CacheStatistics {
        environment.metrics.metrics(store: "http", feature: feature).snapshot()
    }
}

extension ClientFixture {
    /// GETs `path` of `server` with `fields` through the client's `forward`, as `mib proxy` does.
    func get(_ server: TestServer, _ path: String, _ fields: HTTPFields = [:]) async throws -> APIResponse<Data> {
        try await client.forward(method: .get, url: server.baseURL.absoluteString + path, headerFields: fields, body: nil)
    }
}

/// A small JSON body the tests decode.
struct Item: Codable, Sendable, Hashable {
    var id: Int
    var name: String
}

extension APIRequest where Response == Item {
    /// GET `path` decoded as an ``Item``.
    static func item(_ path: String, query: [URLQueryItem] = [], cacheable: Cacheable? = nil) -> APIRequest<Item> {
        APIRequest<Item>(path: path, query: query, cacheable: cacheable)
    }
}
