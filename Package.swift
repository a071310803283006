// swift-tools-version: 6.0
import PackageDescription

/// The monorepo's root: it depends on every kit by path and runs every kit's tests, plus the
/// cross-kit tests in `Tests/`, in one build (`swift test`). Each kit still builds and tests alone
/// (`swift test --package-path Packages/<Kit>`).
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "MIBMonorepo",
    // The floor is set by `Clock`/`Duration` (ContinuousClock, Task.sleep(for:), Duration.components):
    // iOS 16, macOS 13. Nothing needs `Synchronization` (CacheKit's `Locked` is a pthread mutex), and
    // typed throws back-deploy.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .executable(name: "mib", targets: ["mib"]),
        // For Tools/Benchmarks (the backend's own figures, and the whole app's logout).
        .library(name: "ReferenceBackend", targets: ["ReferenceBackend"]),
        .library(name: "MIBApp", targets: ["MIBApp"]),
    ],
    dependencies: [
        .package(path: "Packages/CacheKit"),
        .package(path: "Packages/APICore"),
        .package(path: "Packages/SessionKit"),
        .package(path: "Packages/CatalogKit"),
        .package(path: "Packages/AccountsKit"),
        .package(path: "Packages/ChatHistoryKit"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The reference backend (Apps/) and the test targets: the kits' libraries never link SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // HTTPS for the reference backend, and the pinning tests' certificates.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "ReferenceBackend",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "BankSchema", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Apps/ReferenceBackend"
        ),
        // The app's composition root, as an app would copy it: kits and core only, no server code
        // (Tools/check-manifests.sh keeps it so).
        .target(
            name: "MIBApp",
            dependencies: [
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "CatalogKit", package: "CatalogKit"),
                .product(name: "AccountsKit", package: "AccountsKit"),
                .product(name: "ChatHistoryKit", package: "ChatHistoryKit"),
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreOffline", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "APICorePinning", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Apps/MIBApp"
        ),
        // The tools that drive the app: demo, end-to-end scenarios, proxy, inspector.
        .target(
            name: "MIBCore",
            dependencies: [
                "MIBApp", "ReferenceBackend",
                .product(name: "APICorePinning", package: "APICore"),
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "CatalogKit", package: "CatalogKit"),
                .product(name: "AccountsKit", package: "AccountsKit"),
                .product(name: "ChatHistoryKit", package: "ChatHistoryKit"),
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreOffline", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Apps/MIBCore"
        ),
        .executableTarget(
            name: "mib",
            dependencies: [
                "MIBApp", "MIBCore", "ReferenceBackend",
                .product(name: "APICore", package: "APICore"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Apps/mib"
        ),
        // The fuzz targets' bodies (Tools/Fuzz), so that `swift test` replays every corpus and
        // regression input without a fuzzer.
        .target(
            name: "FuzzBodies",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/Fuzz/Sources/FuzzBodies"
        ),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["FuzzBodies"],
            path: "Tools/Fuzz/Tests/FuzzRegressionTests"
        ),
        .testTarget(
            name: "ReferenceBackendTests",
            dependencies: [
                "ReferenceBackend", "MIBApp", "MIBCore", "mib",
                .product(name: "APICorePinning", package: "APICore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "CatalogKit", package: "CatalogKit"),
                .product(name: "AccountsKit", package: "AccountsKit"),
                .product(name: "ChatHistoryKit", package: "ChatHistoryKit"),
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreOffline", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/ReferenceBackendTests"
        ),
        .testTarget(
            name: "CacheKitTests",
            dependencies: [
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/CacheKit/Tests/CacheKitTests"
        ),
        .testTarget(
            name: "APICoreTests",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreOffline", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "APICoreTestServer", package: "APICore"),
                .product(name: "BankSchema", package: "APICore"),
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
            ],
            path: "Packages/APICore/Tests/APICoreTests"
        ),
        .testTarget(
            name: "SessionKitTests",
            dependencies: [
                .product(name: "SessionKit", package: "SessionKit"),
                .product(name: "SessionKitTesting", package: "SessionKit"),
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/SessionKit/Tests/SessionKitTests"
        ),
        .testTarget(
            name: "CatalogKitTests",
            dependencies: [
                .product(name: "CatalogKit", package: "CatalogKit"),
                .product(name: "CatalogKitTesting", package: "CatalogKit"),
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/CatalogKit/Tests/CatalogKitTests"
        ),
        .testTarget(
            name: "AccountsKitTests",
            dependencies: [
                .product(name: "AccountsKit", package: "AccountsKit"),
                .product(name: "AccountsKitTesting", package: "AccountsKit"),
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/AccountsKit/Tests/AccountsKitTests"
        ),
        .testTarget(
            name: "ChatHistoryKitTests",
            dependencies: [
                .product(name: "ChatHistoryKit", package: "ChatHistoryKit"),
                .product(name: "ChatHistoryKitTesting", package: "ChatHistoryKit"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Packages/ChatHistoryKit/Tests/ChatHistoryKitTests"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/IntegrationTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
