import CacheKitTesting
import Foundation
import Testing

/// ``SpawnedProcess``, the tests' one way to start a child: how it ended, its output, and a program that
/// is not there.
@Suite(.timeLimit(.minutes(10))) struct SpawnedProcessTests {
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

    #if os(Linux)
        /// The child blocks no signal (a dispatch worker, its parent, blocks most: SIGTERM would not stop it)
        /// and holds none of this process's descriptors.
        @Test func theChildBlocksNoSignalAndInheritsNoDescriptor() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("SpawnedProcessTests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let inherited = open(directory.path, O_RDONLY)  // no O_CLOEXEC: a child would inherit it
            #expect(inherited > 2)
            defer { close(inherited) }
            let output = directory.appendingPathComponent("out.txt")
            // Started from a thread that blocks SIGTERM, as a dispatch worker may.
            var term = sigset_t()
            var before = sigset_t()
            sigemptyset(&term)
            sigaddset(&term, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &term, &before)
            // No shell: one resets its own mask.
            let started = Result { try SpawnedProcess.start("/bin/grep", arguments: ["SigBlk", "/proc/self/status"], output: output) }
            pthread_sigmask(SIG_SETMASK, &before, nil)
            #expect(try await started.get().waitUntilExit() == .exited(0))
            #expect(try String(contentsOf: output, encoding: .utf8) == "SigBlk:\t0000000000000000\n")

            let listing = try SpawnedProcess.start("/bin/ls", arguments: ["/proc/self/fd"], output: output)
            #expect(await listing.waitUntilExit() == .exited(0))
            let descriptors = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
            #expect(!descriptors.contains("\(inherited)"), "\(descriptors)")
        }
    #endif

    @Test func aProgramThatIsNotThereIsATypedError() throws {
        let error = try #require(throws: SpawnFailed.self) {
            try SpawnedProcess.start("/nonexistent/program", arguments: [])
        }
        #expect(error.description == "could not start /nonexistent/program: No such file or directory")
    }
}
