// swift-tools-version: 6.0
import PackageDescription

/// One list of Swift settings for every target of this kit: Swift 6 language mode (complete
/// concurrency checking) comes from the tools version; these add the checks we hold ourselves to.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "CacheKit",
    // The floor is set by `Clock`/`Duration` (ContinuousClock, Task.sleep(for:), Duration.components):
    // iOS 16, macOS 13. Nothing needs `Synchronization` (CacheKit's `Locked` is a pthread mutex), and
    // typed throws back-deploy.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CacheKit", targets: ["CacheKit"]),
        .library(name: "CacheKitTesting", targets: ["CacheKitTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Lock-free counters on every OS version (Synchronization.Atomic needs iOS 18).
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        // Keyed hashes (HMAC-SHA256) under a per-install secret: CryptoKit on Apple platforms, BoringSSL on Linux.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `swift package generate-documentation` (DocC).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "CacheKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "CacheKitTesting", dependencies: ["CacheKit", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "CacheKitTests",
            dependencies: ["CacheKit", "CacheKitTesting", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
