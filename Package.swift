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
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    dependencies: [
        .package(path: "Packages/CacheKit"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .testTarget(
            name: "CacheKitTests",
            dependencies: [
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Packages/CacheKit/Tests/CacheKitTests"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
            ],
            path: "Tests/IntegrationTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
