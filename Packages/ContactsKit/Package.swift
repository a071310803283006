// swift-tools-version: 6.0
import PackageDescription

/// Swift 6 language mode (complete concurrency checking) comes from the tools version; these add the
/// checks every package of the repository holds itself to.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ContactsKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ContactsKit", targets: ["ContactsKit"]),
        .library(name: "ContactsKitTesting", targets: ["ContactsKitTesting"]),
    ],
    dependencies: [
        .package(path: "../CacheKit"),
        .package(path: "../APICore"),
        // APICore's API names HTTP methods and header fields with swift-http-types: a kit that calls it with
        // them (`.post`, `[.contentType: …]`) imports HTTPTypes, so it depends on it too.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The kit's own SQLite file per user: the contacts, circles, score and suggestions, offline.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `swift package generate-documentation` (DocC).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "ContactsKit",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreOffline", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ContactsKitTesting",
            dependencies: [
                "ContactsKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ContactsKitTests",
            dependencies: [
                "ContactsKit", "ContactsKitTesting",
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreREST", package: "APICore"),
                .product(name: "APICoreOffline", package: "APICore"),
                .product(name: "APICoreTestServer", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
