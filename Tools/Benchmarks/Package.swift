// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// The monorepo root's package identity: SwiftPM names a path dependency after its folder, and a
/// clone's folder can be called anything.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

/// Benchmarks live in their own package so `swift test` at the root never builds the harness.
/// Run: `swift package --package-path Tools/Benchmarks benchmark`.
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The monorepo's root: the kits (it declares their targets) and the reference backend.
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // A real in-process metrics backend (atomic counters), so the benchmarks count what a bootstrapped
        // app pays for every hit and miss, not swift-metrics' no-op handler.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The pinned transport's benchmark: the HTTPS backend's certificate.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .executableTarget(
            name: "CacheKitBenchmarks",
            dependencies: [
                .product(name: "CacheKit", package: root),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Benchmarks/CacheKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Reads glibc's allocator statistics, to size what a store holds in memory.
        .target(name: "HeapUsage", path: "Benchmarks/HeapUsage"),
        .executableTarget(
            name: "APICoreBenchmarks",
            dependencies: [
                "HeapUsage",
                .product(name: "APICore", package: root),
                .product(name: "APICoreREST", package: root),
                .product(name: "APICoreOffline", package: root),
                .product(name: "APICoreGraphQL", package: root),
                .product(name: "APICoreTesting", package: root),
                .product(name: "CacheKit", package: root),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/APICoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "BackendBenchmarks",
            dependencies: [
                "HeapUsage",
                .product(name: "ContactsKit", package: root),
                .product(name: "APICore", package: root),
                .product(name: "APICoreREST", package: root),
                .product(name: "APICoreOffline", package: root),
                .product(name: "APICoreGraphQL", package: root),
                .product(name: "CacheKit", package: root),
                .product(name: "CacheKitTesting", package: root),
                .product(name: "CatalogKit", package: root),
                .product(name: "AccountsKit", package: root),
                .product(name: "ChatHistoryKit", package: root),
                .product(name: "APICoreTesting", package: root),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ReferenceBackend", package: root),
                .product(name: "ReferenceBackendTLS", package: root),
                .product(name: "MIBApp", package: root),
                .product(name: "MIBCore", package: root),
                .product(name: "APICoreHTTPClient", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "APICorePinning", package: root),
                .product(name: "Crypto", package: "swift-crypto"),
                // SQLite's C interface: the floor of the first screen's reads, with no layer above it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Benchmarks/BackendBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
