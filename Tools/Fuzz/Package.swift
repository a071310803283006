// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// The monorepo root's package identity: SwiftPM names a path dependency after its folder, and a
/// clone's folder can be called anything.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

/// libFuzzer targets over the kits' public API, kept out of the root build like Tools/Benchmarks.
///
/// Build (the default gold linker cannot link the fuzzer runtime; lld can):
///   swift build --package-path Tools/Fuzz -c release -Xswiftc -sanitize=fuzzer,address \
///     -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
/// Run one target for ten minutes on its corpus, with the dictionary of header tokens:
///   SWIFT_BACKTRACE=enable=no Tools/Fuzz/.build/release/FuzzREST Tools/Fuzz/Corpus/FuzzREST \
///     -dict=Tools/Fuzz/fuzz.dict -max_total_time=600
/// `Tools/fuzz.sh` does both for every target. Built without the fuzzer flags, each target replays
/// the files it is given. `swift test` at the root replays every corpus and regression input.
let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The kits come from the root, which declares their targets (and the fuzz bodies, which
        // `swift test` there replays): two packages declaring one target name cannot share a graph.
        .package(path: "../.."),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzJSON", dependencies: [.product(name: "FuzzBodies", package: root), "FuzzDriver"]),
        .executableTarget(name: "FuzzSettings", dependencies: [.product(name: "FuzzBodies", package: root), "FuzzDriver"]),
        .executableTarget(name: "FuzzEnvelope", dependencies: [.product(name: "FuzzBodies", package: root), "FuzzDriver"]),
        .executableTarget(name: "FuzzREST", dependencies: [.product(name: "FuzzBodies", package: root), "FuzzDriver"]),
        .executableTarget(name: "FuzzGraphQL", dependencies: [.product(name: "FuzzBodies", package: root), "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
