import Foundation
import Logging
import MIBCore
import ReferenceBackend

// The demo's story in a loop on one app (one composition, as a long session in one process), against one
// reference backend (in this process unless --server is given, so its memory counts too),
// the resident memory sampled every second; then the curve as an SVG and a CSV, and one line saying
// whether it levelled off (the last half of the run grew less than 1 MB a minute).
//   soak [--minutes 10] [--svg soak.svg] [--csv soak.csv] [--server URL] [--verbose]

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// Writes a line at once (unbuffered), so a long run shows where it is.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let verbose = CommandLine.arguments.contains("--verbose")
let minutes = option("--minutes").flatMap(Double.init) ?? 10
let svgPath = option("--svg") ?? "soak.svg"
let csvPath = option("--csv")
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }

var logger = Logger(label: "soak")
logger.logLevel = .critical
// `--server URL` (a backend in another process, `mib serve`) measures the app alone.
let server = option("--server").flatMap(URL.init(string:))
let backend =
    server == nil
    ? try await ReferenceBackend.start(
        .init(databaseURL: directory.appendingPathComponent("backend.sqlite"), passwordWork: .light, logger: logger)) : nil
let baseURL = try server ?? (backend?.baseURL).unwrapped()

final class Samples: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Plot.Sample] = []
    func append(_ sample: Plot.Sample) { lock.withLock { values.append(sample) } }
    var all: [Plot.Sample] { lock.withLock { values } }
}

let started = ContinuousClock.now
func elapsed() -> Double {
    let (seconds, attoseconds) = (ContinuousClock.now - started).components
    return Double(seconds) + Double(attoseconds) / 1e18
}
let samples = Samples()
let sampler = Task {
    while !Task.isCancelled {
        samples.append(.init(seconds: elapsed(), megabytes: Double(ResidentMemory.bytes()) / 1_048_576))
        try? await Task.sleep(for: .seconds(1))
    }
}
// One app for the whole run, as one long session in one process: every story signs in and ends with a logout.
let app = try DemoComposition(
    baseURL: baseURL, cachesDirectory: directory.appendingPathComponent("app/caches"), logger: logger)
var loopEnds: [Double] = []
while elapsed() < minutes * 60 {
    _ = try await Demo.run(app: app) { step in
        if verbose { say(String(format: "  %.0f s  %@: %@", elapsed(), step.name, step.outcome)) }
    }
    loopEnds.append(elapsed())
    say(
        String(format: "story %d done at %.0f s: %.1f MB resident", loopEnds.count, elapsed(), Double(ResidentMemory.bytes()) / 1_048_576))
}
sampler.cancel()
await backend?.stop()

let all = samples.all
let secondHalf = all.filter { $0.seconds >= elapsed() / 2 }
// The least-squares slope of the second half, in MB a minute.
let meanX = secondHalf.map(\.seconds).reduce(0, +) / Double(max(secondHalf.count, 1))
let meanY = secondHalf.map(\.megabytes).reduce(0, +) / Double(max(secondHalf.count, 1))
let covariance = secondHalf.map { ($0.seconds - meanX) * ($0.megabytes - meanY) }.reduce(0, +)
let variance = secondHalf.map { ($0.seconds - meanX) * ($0.seconds - meanX) }.reduce(0, +)
let slope = variance > 0 ? covariance / variance * 60 : 0
let peak = all.map(\.megabytes).max() ?? 0
let afterOneMinute = all.first { $0.seconds >= 60 }?.megabytes ?? 0
let last = all.last?.megabytes ?? 0
let summary = String(
    format: "%d stories in %.1f min; resident %.0f MB after 1 min, %.0f MB at the end, %.0f MB at peak; second half %+.2f MB/min: %@",
    loopEnds.count, elapsed() / 60, afterOneMinute, last, peak, slope, slope < 1 ? "levelled off" : "still growing")
say(summary)
let title = String(
    format: "mib demo in a loop: resident memory, %d stories in %.0f min (second half %+.2f MB/min)", loopEnds.count, elapsed() / 60, slope)
try Plot.svg(all, loops: loopEnds, title: title).write(toFile: svgPath, atomically: true, encoding: .utf8)
if let csvPath {
    let rows = all.map { String(format: "%.1f,%.2f", $0.seconds, $0.megabytes) }
    try (["seconds,megabytes"] + rows).joined(separator: "\n").write(toFile: csvPath, atomically: true, encoding: .utf8)
}

extension Optional {
    /// The value, or a clear error when a backend neither started nor was given.
    func unwrapped() throws -> Wrapped {
        guard let self else { throw CocoaError(.featureUnsupported) }
        return self
    }
}
