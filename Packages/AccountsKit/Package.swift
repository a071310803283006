// swift-tools-version: 6.0
import PackageDescription

/// One list of Swift settings for every target of this kit: Swift 6 language mode (complete
/// concurrency checking) comes from the tools version; these add the checks we hold ourselves to.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AccountsKit",
    // The floor is set by `Clock`/`Duration` (ContinuousClock, Task.sleep(for:), Duration.components):
    // iOS 16, macOS 13. Nothing needs `Synchronization` (CacheKit's `Locked` is a pthread mutex), and
    // typed throws back-deploy.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "AccountsKit", targets: ["AccountsKit"]),
        .library(name: "AccountsKitTesting", targets: ["AccountsKitTesting"]),
    ],
    dependencies: [
        .package(path: "../CacheKit"),
        .package(path: "../APICore"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation` (DocC).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "AccountsKit",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AccountsKitTesting",
            dependencies: [
                "AccountsKit",
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "AccountsKitTests",
            dependencies: [
                "AccountsKit", "AccountsKitTesting",
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreGraphQL", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
