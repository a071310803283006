import Foundation
import Testing

/// Every path the kits and the app build from a value goes through `PathSegments` (security review two,
/// finding 10, fixed as a class): a scan of their sources finds no string literal path with an
/// interpolation in it, so a new route cannot put an id in a path unencoded.
@Suite(.timeLimit(.minutes(10))) struct PathBuildingTests {
    @Test func noSourceInterpolatesAValueIntoAPath() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var scanned = 0
        var found: [String] = []
        for folder in ["Packages", "Apps/MIBApp"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift", file.path.contains("/Sources/") || folder == "Apps/MIBApp",
                    !file.path.contains("Testing/")
                else { continue }
                scanned += 1
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                for (number, line) in lines.enumerated() where line.contains(#/"/[A-Za-z0-9_\-/]*\\\(/#) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(scanned > 50, "the scan read the sources")
        #expect(found.isEmpty, "paths built by interpolation: \(found)")
    }
}
