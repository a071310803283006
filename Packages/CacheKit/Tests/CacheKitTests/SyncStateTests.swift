import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// ``SyncRunner/states()`` at its edges: the signed-in user's last completion is read when first asked, and a
/// clearing that comes while it is being read wins (the next user never sees the last one's date).
@Suite(.timeLimit(.minutes(10))) struct SyncStateTests {
    /// A source whose checkpoint reads wait at a gate; each user completed a sync at their own date.
    struct GatedSource: SyncSource {
        let name = "gated"
        let gate: AsyncGate
        let signedIn: Locked<String>
        let completed: [String: Date]
        let reads = Locked(0)

        func owner() async throws -> String { signedIn.withLock { $0 } }
        func checkpoint(for owner: String) async throws -> SyncCheckpoint? {
            await gate.wait()
            defer { reads.withLock { $0 += 1 } }
            return SyncCheckpoint(mode: .incremental, lastCompletedAt: completed[owner])
        }
        func fetchPage(_ request: SyncPageRequest, for owner: String) async throws -> SyncPage<Int> {
            SyncPage(content: 0, counts: [:], nextPageCursor: nil, changesToken: nil)
        }
        func store(_ page: SyncPage<Int>, checkpoint: SyncCheckpoint, for owner: String) async throws {}
    }

    private let alicesDate = Date(timeIntervalSince1970: 1_768_000_000)
    private let bobsDate = Date(timeIntervalSince1970: 1_769_000_000)

    private func follow(_ runner: SyncRunner) -> (Locked<[SyncState]>, Task<Void, Never>) {
        let states = Locked<[SyncState]>([])
        let task = Task { for await state in runner.states() { states.withLock { $0.append(state) } } }
        return (states, task)
    }

    @Test func theLastCompletionIsReadFromTheCheckpointWhenFirstAsked() async throws {
        let source = GatedSource(gate: AsyncGate(), signedIn: Locked("alice"), completed: ["alice": alicesDate])
        let runner = SyncRunner(source, clock: ManualClock())
        let (states, task) = follow(runner)
        defer { task.cancel() }
        source.gate.open()
        try await waitUntil("alice's last completion") { states.withLock { $0 }.last?.lastCompletedAt == alicesDate }
        #expect(runner.state.isFirstSyncFinished)
    }

    @Test func aClearingWhileTheCheckpointIsReadWinsOverTheDateRead() async throws {
        let source = GatedSource(gate: AsyncGate(), signedIn: Locked("alice"), completed: ["alice": alicesDate, "bob": bobsDate])
        let runner = SyncRunner(source, clock: ManualClock())
        let (_, first) = follow(runner)  // starts reading alice's date, held at the gate
        defer { first.cancel() }
        try await waitUntil("the first read to wait at the gate") { source.gate.waiting > 0 }
        runner.cancel()  // alice logs out while her date is being read; bob signs in
        source.signedIn.withLock { $0 = "bob" }
        source.gate.open()
        try await waitUntil("alice's read to end") { source.reads.withLock { $0 } == 1 }
        let (states, second) = follow(runner)
        defer { second.cancel() }
        try await waitUntil("bob's last completion") { states.withLock { $0 }.last?.lastCompletedAt != nil }
        #expect(runner.state.lastCompletedAt == bobsDate, "alice's date came back after her logout")
    }
}
