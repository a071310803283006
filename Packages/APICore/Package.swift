// swift-tools-version: 6.0
import PackageDescription

/// One list of Swift settings for every target of this kit: Swift 6 language mode (complete
/// concurrency checking) comes from the tools version; these add the checks we hold ourselves to.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "APICore",
    // The floor is set by `Clock`/`Duration` (ContinuousClock, Task.sleep(for:), Duration.components):
    // iOS 16, macOS 13. Nothing needs `Synchronization` (CacheKit's `Locked` is a pthread mutex), and
    // typed throws back-deploy.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        // The core every kit needs: the container and registration, the transport protocol and errors,
        // auth events, connectivity, telemetry and JSON.
        .library(name: "APICore", targets: ["APICore"]),
        // The REST client with its HTTP cache.
        .library(name: "APICoreREST", targets: ["APICoreREST"]),
        // The GraphQL client with its normalized cache and record stores: the only module that links
        // GraphQLSwift.
        .library(name: "APICoreGraphQL", targets: ["APICoreGraphQL"]),
        // The offline mutation queue.
        .library(name: "APICoreOffline", targets: ["APICoreOffline"]),
        .library(name: "APICoreTesting", targets: ["APICoreTesting"]),
        // A loopback HTTP server for kits' test targets; it links SwiftNIO, so no library depends on it.
        .library(name: "APICoreTestServer", targets: ["APICoreTestServer"]),
        // The bank's GraphQL schema, one definition for the reference backend and APICore's tests.
        .library(name: "BankSchema", targets: ["BankSchema"]),
        // Certificate pinning on every platform (SwiftNIO and NIOSSL): its own product, so a kit that
        // does not use it links no SwiftNIO.
        .library(name: "APICorePinning", targets: ["APICorePinning"]),
        // A transport on AsyncHTTPClient (SwiftNIO) for Linux tools and servers: bodies passed through as
        // sent, whatever their Content-Encoding. Its own product, so no kit links SwiftNIO.
        .library(name: "APICoreHTTPClient", targets: ["APICoreHTTPClient"]),
    ],
    dependencies: [
        .package(path: "../CacheKit"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Time-to-interactive percentiles (ScreenTelemetry).
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // The test server product and test targets only: the kit's library never links SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // APICoreHTTPClient only.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // APICorePinning only.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // APICorePinning: the path from a server's leaf to a pinned key is verified (signatures, dates, names).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // `swift package generate-documentation` (DocC) for every module.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "APICore",
            dependencies: [
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "APICoreREST",
            dependencies: [
                "APICore",
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "APICoreOffline",
            dependencies: [
                "APICore", "APICoreREST",
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "APICoreGraphQL",
            dependencies: [
                "APICore", "APICoreREST", "APICoreOffline",
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "APICoreTesting",
            dependencies: ["APICore", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .target(
            name: "APICoreTestServer",
            dependencies: [
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "APICorePinning",
            dependencies: [
                "APICore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "APICoreHTTPClient",
            dependencies: [
                "APICore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "BankSchema",
            dependencies: [
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "APICoreTests",
            dependencies: [
                "APICore", "APICoreREST", "APICoreGraphQL", "APICoreOffline", "APICoreTesting", "APICoreTestServer",
                "APICoreHTTPClient", "BankSchema",
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
