import Benchmark
import CacheKit
import Foundation
import ReferenceBackend

// What the benchmarks' setups leave behind: their folders (a backend's database, a launch's caches, about 15 MB a
// row) and their backends (an event loop each). Both last for their benchmark only: `Benchmark.teardown` runs after
// each one, so a run of every row no longer leaves gigabytes in the temporary folder and a backend running per row.

private let leftBehind = Locked<(directories: [URL], backends: [ReferenceBackend])>(([], []))

/// A new folder in the temporary folder, named `prefix` and a UUID, removed when its benchmark ends.
func scratchDirectory(_ prefix: String) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    leftBehind.withLock { $0.directories.append(directory) }
    return directory
}

/// The reference backend started with `configuration`, stopped when its benchmark ends.
func startBackend(_ configuration: ReferenceBackend.Configuration) async throws -> ReferenceBackend {
    let backend = try await ReferenceBackend.start(configuration)
    leftBehind.withLock { $0.backends.append(backend) }
    return backend
}

/// Stops the backends and removes the folders made since the last benchmark ended.
func removeWhatTheBenchmarkLeft() async {
    let (directories, backends) = leftBehind.withLock { made in
        defer { made = ([], []) }
        return (made.directories, made.backends)
    }
    for backend in backends { await backend.stop() }
    for directory in directories { try? FileManager.default.removeItem(at: directory) }
}
