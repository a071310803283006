import Foundation
import Testing

/// Every child process the tests start goes through `SpawnedProcess` (posix_spawn), never Foundation's
/// `Process`, whose `run()` on Linux now and then crashes the parent itself: a scan of the repository's
/// Swift sources finds no `Process()`.
@Suite(.timeLimit(.minutes(10))) struct ChildProcessTests {
    @Test func noSourceStartsAChildThroughFoundationsProcess() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var scanned = 0
        var found: [String] = []
        for folder in ["Packages", "Apps", "Tests", "Tools"] {
            let files = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder, isDirectory: true), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                if file.lastPathComponent.hasPrefix(".build") { files?.skipDescendants() }
                guard file.pathExtension == "swift", !file.path.contains("/.build"), file.lastPathComponent != "ChildProcessTests.swift"
                else { continue }
                scanned += 1
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                for (number, line) in lines.enumerated() where line.contains(#/\bProcess\(\)/#) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(scanned > 200, "the scan read the sources")
        #expect(found.isEmpty, "children started through Foundation's Process: \(found)")
    }
}
