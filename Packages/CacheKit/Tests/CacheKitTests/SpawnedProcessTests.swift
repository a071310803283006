import CacheKitTesting
import Foundation
import Testing

/// ``SpawnedProcess``, the tests' one way to start a child: how it ended, its output, and a program that
/// is not there.
@Suite(.timeLimit(.minutes(1))) struct SpawnedProcessTests {
    @Test func anExitStatusAndAKillAreToldApart() async throws {
        let exits = try SpawnedProcess.start("/bin/sh", arguments: ["-c", "exit 3"])
        #expect(await exits.waitUntilExit() == .exited(3))
        #expect(!exits.isRunning)

        let sleeps = try SpawnedProcess.start("/bin/sleep", arguments: ["30"])
        #expect(sleeps.isRunning)
        #expect(sleeps.send(SIGKILL))
        #expect(await sleeps.waitUntilExit() == .signalled(SIGKILL))
        #expect(!sleeps.send(SIGKILL), "an ended child's id is never signalled again")
    }

    @Test func theOutputGoesToItsFileAndTheEnvironmentIsTheOneGiven() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("SpawnedProcessTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.txt")
        let child = try SpawnedProcess.start(
            "/bin/sh", arguments: ["-c", "echo \"$GREETING\" \"$HOME\""], environment: ["GREETING": "hello there"], output: output)
        #expect(await child.waitUntilExit() == .exited(0))
        #expect(try String(contentsOf: output, encoding: .utf8) == "hello there \n")
    }

    @Test func aProgramThatIsNotThereIsATypedError() throws {
        let error = try #require(throws: SpawnFailed.self) {
            try SpawnedProcess.start("/nonexistent/program", arguments: [])
        }
        #expect(error.description == "could not start /nonexistent/program: No such file or directory")
    }
}
