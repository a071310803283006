// swift-tools-version: 6.0
// An app in another repository, as its team writes it: this repository by URL, and the kits it uses.
// Tools/consumer/check.sh fills in the URL and the requirement (a branch, then a version tag).
import PackageDescription

let package = Package(
    name: "ConsumerApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(url: "__URL__", __REQUIREMENT__),
    ],
    targets: [
        .executableTarget(
            name: "ConsumerApp",
            dependencies: [
                .product(name: "CacheKit", package: "mib-data-layer"),
                .product(name: "APICore", package: "mib-data-layer"),
                .product(name: "APICoreREST", package: "mib-data-layer"),
                .product(name: "APICoreOffline", package: "mib-data-layer"),
                .product(name: "APICoreGraphQL", package: "mib-data-layer"),
                .product(name: "SessionKit", package: "mib-data-layer"),
                .product(name: "CatalogKit", package: "mib-data-layer"),
                .product(name: "AccountsKit", package: "mib-data-layer"),
                .product(name: "ChatHistoryKit", package: "mib-data-layer"),
                .product(name: "ContactsKit", package: "mib-data-layer"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
