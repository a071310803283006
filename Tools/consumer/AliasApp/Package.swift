// swift-tools-version: 6.0
// An app with a module of its own called CacheKit, like ours: ours is renamed for the target that needs both
// (moduleAliases), as the README shows. Tools/consumer/check.sh fills in the URL and the requirement.
import PackageDescription

let package = Package(
    name: "AliasApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(url: "__URL__", __REQUIREMENT__),
    ],
    targets: [
        .target(name: "CacheKit"),
        .executableTarget(
            name: "AliasedApp",
            dependencies: [
                "CacheKit",
                .product(name: "CacheKit", package: "mib-data-layer", moduleAliases: ["CacheKit": "MIBCacheKit"]),
                .product(name: "CatalogKit", package: "mib-data-layer"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
