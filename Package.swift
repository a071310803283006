// swift-tools-version: 6.1
import PackageDescription

#if os(Linux)
    import Foundation

    // The first command on a fresh Linux machine fails here, at once, rather than after minutes of compiling:
    // GRDB compiles against the system SQLite, whose headers come from a package. Set
    // MIB_SQLITE_HEADERS_ELSEWHERE=1 when they are installed outside /usr/include.
    if !FileManager.default.fileExists(atPath: "/usr/include/sqlite3.h"),
        ProcessInfo.processInfo.environment["MIB_SQLITE_HEADERS_ELSEWHERE"] == nil
    {
        FileHandle.standardError.write(
            Data(
                "SQLite's headers are missing (/usr/include/sqlite3.h): install them with `sudo apt-get install libsqlite3-dev` (Debian, Ubuntu) or `sudo dnf install sqlite-devel` (Fedora), then run the command again.\n"
                    .utf8))
        exit(1)
    }
#endif

/// The monorepo's root. It declares every kit's targets itself (the section below, kept equal to each
/// kit's own manifest by `Tools/kit-manifests.py`) and exports each kit library as a product, so an app in
/// another repository depends on this one by URL. It runs every kit's tests and the cross-kit tests in
/// `Tests/` in one build (`swift test`); each kit still builds and tests alone from its own manifest
/// (`swift test --package-path Packages/<Kit>`).
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// BEGIN kit targets: generated from Packages/*/Package.swift by `Tools/kit-manifests.py write`.
// Each kit builds and tests alone from its own manifest; CI checks that this section agrees with them.
let kitProducts: [Product] = [
    .library(name: "CacheKit", targets: ["CacheKit"]),
    .library(name: "CacheKitTesting", targets: ["CacheKitTesting"]),
    .library(name: "APICore", targets: ["APICore"]),
    .library(name: "APICoreREST", targets: ["APICoreREST"]),
    .library(name: "APICoreGraphQL", targets: ["APICoreGraphQL"]),
    .library(name: "APICoreOffline", targets: ["APICoreOffline"]),
    .library(name: "APICoreTesting", targets: ["APICoreTesting"]),
    .library(name: "APICoreTestServer", targets: ["APICoreTestServer"]),
    .library(name: "BankSchema", targets: ["BankSchema"]),
    .library(name: "APICorePinning", targets: ["APICorePinning"]),
    .library(name: "APICoreHTTPClient", targets: ["APICoreHTTPClient"]),
    .library(name: "SessionKit", targets: ["SessionKit"]),
    .library(name: "SessionKitTesting", targets: ["SessionKitTesting"]),
    .library(name: "CatalogKit", targets: ["CatalogKit"]),
    .library(name: "CatalogKitTesting", targets: ["CatalogKitTesting"]),
    .library(name: "AccountsKit", targets: ["AccountsKit"]),
    .library(name: "AccountsKitTesting", targets: ["AccountsKitTesting"]),
    .library(name: "ChatHistoryKit", targets: ["ChatHistoryKit"]),
    .library(name: "ChatHistoryKitTesting", targets: ["ChatHistoryKitTesting"]),
    .library(name: "ContactsKit", targets: ["ContactsKit"]),
    .library(name: "ContactsKitTesting", targets: ["ContactsKitTesting"]),
]

let kitTargets: [Target] = [
    .target(
        name: "CacheKit",
        dependencies: [
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        path: "Packages/CacheKit/Sources/CacheKit"
    ),
    .target(
        name: "CacheKitTesting",
        dependencies: [
            "CacheKit",
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/CacheKit/Sources/CacheKitTesting"
    ),
    .testTarget(
        name: "CacheKitTests",
        dependencies: [
            "CacheKit",
            "CacheKitTesting",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/CacheKit/Tests/CacheKitTests"
    ),
    .target(
        name: "APICore",
        dependencies: [
            "CacheKit",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ],
        path: "Packages/APICore/Sources/APICore"
    ),
    .target(
        name: "APICoreREST",
        dependencies: [
            "APICore",
            "CacheKit",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/APICore/Sources/APICoreREST"
    ),
    .target(
        name: "APICoreOffline",
        dependencies: [
            "APICore",
            "APICoreREST",
            "CacheKit",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/APICore/Sources/APICoreOffline"
    ),
    .target(
        name: "APICoreGraphQL",
        dependencies: [
            "APICore",
            "APICoreREST",
            "APICoreOffline",
            "CacheKit",
            .product(name: "GraphQL", package: "GraphQL"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/APICore/Sources/APICoreGraphQL"
    ),
    .target(
        name: "APICoreTesting",
        dependencies: [
            "APICore",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        path: "Packages/APICore/Sources/APICoreTesting"
    ),
    .target(
        name: "APICoreTestServer",
        dependencies: [
            "CacheKit",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        path: "Packages/APICore/Sources/APICoreTestServer"
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
        ],
        path: "Packages/APICore/Sources/APICorePinning"
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
        ],
        path: "Packages/APICore/Sources/APICoreHTTPClient"
    ),
    .target(
        name: "BankSchema",
        dependencies: [
            .product(name: "GraphQL", package: "GraphQL"),
            .product(name: "OrderedCollections", package: "swift-collections"),
        ],
        path: "Packages/APICore/Sources/BankSchema"
    ),
    .testTarget(
        name: "APICoreTests",
        dependencies: [
            "APICore",
            "APICoreREST",
            "APICoreGraphQL",
            "APICoreOffline",
            "APICoreTesting",
            "APICoreTestServer",
            "APICoreHTTPClient",
            "BankSchema",
            "CacheKit",
            "CacheKitTesting",
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
    .target(
        name: "SessionKit",
        dependencies: [
            "APICore",
            "CacheKit",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/SessionKit/Sources/SessionKit"
    ),
    .target(
        name: "SessionKitTesting",
        dependencies: [
            "SessionKit",
            "CacheKit",
        ],
        path: "Packages/SessionKit/Sources/SessionKitTesting"
    ),
    .testTarget(
        name: "SessionKitTests",
        dependencies: [
            "SessionKit",
            "SessionKitTesting",
            "APICore",
            "APICoreTesting",
            "CacheKit",
            "CacheKitTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        path: "Packages/SessionKit/Tests/SessionKitTests"
    ),
    .target(
        name: "CatalogKit",
        dependencies: [
            "APICore",
            "APICoreREST",
            "APICoreOffline",
            "CacheKit",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/CatalogKit/Sources/CatalogKit"
    ),
    .target(
        name: "CatalogKitTesting",
        dependencies: [
            "CatalogKit",
            "APICore",
            "CacheKit",
            "APICoreTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        path: "Packages/CatalogKit/Sources/CatalogKitTesting"
    ),
    .testTarget(
        name: "CatalogKitTests",
        dependencies: [
            "CatalogKit",
            "CatalogKitTesting",
            "APICore",
            "APICoreREST",
            "APICoreTesting",
            "CacheKit",
            "CacheKitTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/CatalogKit/Tests/CatalogKitTests"
    ),
    .target(
        name: "AccountsKit",
        dependencies: [
            "APICore",
            "APICoreREST",
            "APICoreGraphQL",
            "CacheKit",
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/AccountsKit/Sources/AccountsKit"
    ),
    .target(
        name: "AccountsKitTesting",
        dependencies: [
            "AccountsKit",
            "APICore",
            "APICoreTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        path: "Packages/AccountsKit/Sources/AccountsKitTesting"
    ),
    .testTarget(
        name: "AccountsKitTests",
        dependencies: [
            "AccountsKit",
            "AccountsKitTesting",
            "APICore",
            "APICoreREST",
            "APICoreGraphQL",
            "APICoreTesting",
            "CacheKit",
            "CacheKitTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/AccountsKit/Tests/AccountsKitTests"
    ),
    .target(
        name: "ChatHistoryKit",
        dependencies: [
            "APICore",
            "APICoreREST",
            "APICoreOffline",
            "CacheKit",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/ChatHistoryKit/Sources/ChatHistoryKit"
    ),
    .target(
        name: "ChatHistoryKitTesting",
        dependencies: [
            "ChatHistoryKit",
            .product(name: "GRDB", package: "GRDB.swift"),
        ],
        path: "Packages/ChatHistoryKit/Sources/ChatHistoryKitTesting"
    ),
    .testTarget(
        name: "ChatHistoryKitTests",
        dependencies: [
            "ChatHistoryKit",
            "ChatHistoryKitTesting",
            "CacheKit",
            "CacheKitTesting",
            .product(name: "GRDB", package: "GRDB.swift"),
        ],
        path: "Packages/ChatHistoryKit/Tests/ChatHistoryKitTests"
    ),
    .target(
        name: "ContactsKit",
        dependencies: [
            "APICore",
            "APICoreREST",
            "APICoreOffline",
            "CacheKit",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Packages/ContactsKit/Sources/ContactsKit"
    ),
    .target(
        name: "ContactsKitTesting",
        dependencies: [
            "ContactsKit",
            .product(name: "GRDB", package: "GRDB.swift"),
        ],
        path: "Packages/ContactsKit/Sources/ContactsKitTesting"
    ),
    .testTarget(
        name: "ContactsKitTests",
        dependencies: [
            "ContactsKit",
            "ContactsKitTesting",
            "APICore",
            "APICoreREST",
            "APICoreOffline",
            "APICoreTestServer",
            "APICoreTesting",
            "CacheKit",
            "CacheKitTesting",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        path: "Packages/ContactsKit/Tests/ContactsKitTests"
    ),
]
// END kit targets

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
        .library(name: "ReferenceBackendTLS", targets: ["ReferenceBackendTLS"]),
        .library(name: "MIBApp", targets: ["MIBApp"]),
        // For Tools/Benchmarks: mib proxy through each transport.
        .library(name: "MIBCore", targets: ["MIBCore"]),
        // For Tools/Fuzz: the fuzz targets' bodies, which `swift test` here replays on every input.
        .library(name: "FuzzBodies", targets: ["FuzzBodies"]),
    ] + kitProducts,
    // `swift run mib demo`, the first command, builds no HTTPS serving and no pinning (swift-certificates,
    // and on Apple platforms BoringSSL for NIOSSL): they are in `mib` with this trait, and in their own
    // modules (`ReferenceBackendTLS`, `APICorePinning`), which `swift test` builds and tests either way.
    traits: [
        .trait(
            name: "TLS",
            description: "mib serve --tls-certificate and mib e2e --pin: swift run --traits TLS mib …")
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The reference backend (Apps/) and the test targets: the kits' libraries never link SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // APICoreHTTPClient: the tools' transport on Linux.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // HTTPS for the reference backend, and the pinning tests' certificates.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "ReferenceBackend",
            dependencies: [
                "APICore",
                "BankSchema",
                "CacheKit",
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
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Apps/ReferenceBackend"
        ),
        // HTTPS for the reference backend (`mib serve --tls-certificate`, the pinning tests).
        .target(
            name: "ReferenceBackendTLS",
            dependencies: [
                "ReferenceBackend",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Apps/ReferenceBackendTLS"
        ),
        // The app's composition root, as an app would copy it: kits and core only, no server code
        // (Tools/check-manifests.sh keeps it so).
        .target(
            name: "MIBApp",
            dependencies: [
                "SessionKit",
                "CatalogKit",
                "AccountsKit",
                "ChatHistoryKit",
                "ContactsKit",
                "APICore",
                "APICoreREST",
                "APICoreOffline",
                "APICoreGraphQL",
                "CacheKit",
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
                .target(name: "APICoreHTTPClient", condition: .when(platforms: [.linux])),
                "SessionKit",
                "CatalogKit",
                "AccountsKit",
                "ChatHistoryKit",
                "ContactsKit",
                "APICore",
                "APICoreOffline",
                "APICoreREST",
                "APICoreGraphQL",
                "CacheKit",
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
                "APICore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                "CacheKit",
                .product(name: "Logging", package: "swift-log"),
                .target(name: "APICorePinning", condition: .when(traits: ["TLS"])),
                .target(name: "ReferenceBackendTLS", condition: .when(traits: ["TLS"])),
            ],
            path: "Apps/mib"
        ),
        // Every Swift example of the documentation (README, docs/, the packages' READMEs and DocC catalogs),
        // extracted by Tools/DocExamples/extract.py: the build compiles them against the current API.
        .target(
            name: "DocExamples",
            dependencies: [
                "APICore", "APICoreGraphQL", "APICoreHTTPClient", "APICoreOffline", "APICorePinning", "APICoreREST",
                "AccountsKit", "CacheKit", "CatalogKit", "ChatHistoryKit", "ContactsKit", "MIBApp", "MIBCore",
                "ReferenceBackend", "SessionKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/DocExamples/Sources/DocExamples"
        ),
        // The testing modules' examples, which are test code.
        .testTarget(
            name: "DocExampleTests",
            dependencies: [
                "DocExamples", "APICoreTestServer", "APICoreTesting", "CacheKit", "CacheKitTesting", "CatalogKitTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ],
            path: "Tools/DocExamples/Tests/DocExampleTests"
        ),
        // The fuzz targets' bodies (Tools/Fuzz), so that `swift test` replays every corpus and
        // regression input without a fuzzer.
        .target(
            name: "FuzzBodies",
            dependencies: [
                "APICore",
                "APICoreREST",
                "APICoreGraphQL",
                "APICoreTesting",
                "CacheKit",
                "CacheKitTesting",
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
                "ReferenceBackend", "ReferenceBackendTLS", "MIBApp", "MIBCore", "mib",
                "APICorePinning", "APICoreHTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "SessionKit",
                "CatalogKit",
                "AccountsKit",
                "ChatHistoryKit",
                "ContactsKit",
                "APICore",
                "APICoreREST",
                "APICoreOffline",
                "APICoreGraphQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "APICoreTesting",
                "CacheKit",
                "CacheKitTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/ReferenceBackendTests"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "APICore",
                "APICoreOffline",
                "AccountsKit",
                "CatalogKit",
                "ChatHistoryKit",
                "ContactsKit",
                "SessionKit",
                "APICoreREST",
                "APICoreGraphQL",
                "APICoreTesting",
                "CacheKit",
                "CacheKitTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/IntegrationTests"
        ),
    ] + kitTargets,
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
