import ArgumentParser
import Foundation
import ReferenceBackend
import Testing

@testable import mib

/// `mib e2e`, `inspect` and `proxy` check the server they are given before anything else: when nothing
/// answers, one sentence naming the URL and the cause, and exit status 2, instead of a failure per scenario.
@Suite(.timeLimit(.minutes(10))) struct UnreachableServerTests {
    static let nothingListens = URL(string: "http://127.0.0.1:1")

    @Test func anUnreachableServerIsOneSentenceNamingItAndTheCause() async throws {
        let url = try #require(Self.nothingListens)
        let sentence = try #require(await unreachable(url, probing: "health", named: "the server", hint: "start it"))
        #expect(sentence.hasPrefix("mib: the server http://127.0.0.1:1 cannot be reached (nothing answered: "))
        #expect(sentence.hasSuffix("; start it."))
        #expect(!sentence.dropLast().contains(". "), "one sentence: \(sentence)")
        #expect(!sentence.contains("TransportError") && !sentence.contains("offline(reason"), "\(sentence)")
    }

    @Test func aServerThatAnswersPassesTheCheckWhateverTheStatus() async throws {
        try await withBackend(1) { fixture in
            #expect(await unreachable(fixture.backend.baseURL, probing: "health", named: "the server", hint: "x") == nil)
            #expect(await unreachable(fixture.backend.baseURL, probing: "no/such/path", named: "the server", hint: "x") == nil)
        }
    }

    @Test(arguments: [["e2e"], ["inspect"]])
    func e2eAndInspectExitWithStatus2BeforeRunningAnything(_ command: [String]) async throws {
        let parsed = try MIB.parseAsRoot(command + ["--server", "http://127.0.0.1:1"])
        guard var asynchronous = parsed as? any AsyncParsableCommand else {
            Issue.record("\(command) is not an async command")
            return
        }
        await #expect(throws: ExitCode(2)) { try await asynchronous.run() }
    }

    @Test func theProxyExitsWithStatus2WhenItsUpstreamDoesNotAnswer() async throws {
        let proxy = try ProxyCommand.parse(["--upstream", "http://127.0.0.1:1", "--port", "0"])
        await #expect(throws: ExitCode(2)) { try await proxy.run() }
    }
}
