// swift-tools-version: 6.0
import PackageDescription

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
        .package(path: "../../Packages/CacheKit"),
        .package(path: "../../Packages/APICore"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "FuzzBodies",
            dependencies: [
                .product(name: "APICore", package: "APICore"),
                .product(name: "APICoreTesting", package: "APICore"),
                .product(name: "CacheKit", package: "CacheKit"),
                .product(name: "CacheKitTesting", package: "CacheKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzBodies", "FuzzDriver"]),
        .executableTarget(name: "FuzzSettings", dependencies: ["FuzzBodies", "FuzzDriver"]),
        .executableTarget(name: "FuzzEnvelope", dependencies: ["FuzzBodies", "FuzzDriver"]),
        .executableTarget(name: "FuzzREST", dependencies: ["FuzzBodies", "FuzzDriver"]),
        .executableTarget(name: "FuzzGraphQL", dependencies: ["FuzzBodies", "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
