import APICore
import APICoreREST
import CacheKit
import CacheKitTesting
import CatalogKit
import CatalogKitTesting
import Logging

/// A catalog client over an in-memory server, its cache in a temporary folder, on a manual clock.
struct CatalogFixture {
    let server: FakeCatalogTransport
    let clock = ManualClock()
    let directory: TemporaryDirectory
    let environment: CacheEnvironment
    let client: CatalogClient

    init(funnels: Int = 12, settings: TimeoutSettings = TimeoutSettings()) throws {
        server = FakeCatalogTransport(funnels: FakeCatalogTransport.funnels(funnels))
        directory = try TemporaryDirectory()
        var logger = Logger(label: "catalog-test")
        logger.logLevel = .critical
        environment = CacheEnvironment(
            clock: clock, timeouts: CacheTimeoutPolicy(settings: settings), logger: logger,
            cachesDirectory: directory.url)
        client = CatalogClient(
            sharing: .init(
                baseURL: FakeCatalogTransport.baseURL, transport: server,
                environment: environment, retry: .none))
    }
}
