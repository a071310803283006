// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// The monorepo root's package identity: SwiftPM names a path dependency after its folder.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

/// The memory soak: the demo's story in a loop for ten minutes, the process's resident memory sampled
/// every second, and the curve drawn as an SVG. A tool, not a test: it takes minutes and reads real memory.
/// Run: `swift run --package-path Tools/Soak -c release soak [--minutes 10] [--svg docs/soak.svg]`.
let package = Package(
    name: "Soak",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "soak",
            dependencies: [
                .product(name: "MIBCore", package: root),
                .product(name: "ReferenceBackend", package: root),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/soak"
        )
    ],
    swiftLanguageModes: [.v6]
)
