import CacheKit
import CacheKitTesting
import Foundation
import Testing

/// The stores the conformance suite runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory, disk
    var testDescription: String { rawValue }
}

/// A store under test with its clock and folder. Both stores count an entry's size the same way
/// (key bytes plus value bytes), so one byte limit means the same in both.
final class StoreFixture: Sendable {
    let kind: StoreKind
    let clock = ManualClock()
    let directory: TemporaryDirectory
    let metrics: CacheMetrics
    let byteLimit: Int
    let countLimit: Int
    let store: any CacheStore<Data>

    init(_ kind: StoreKind, byteLimit: Int = 1_000_000, countLimit: Int = 100_000) throws {
        self.kind = kind
        self.byteLimit = byteLimit
        self.countLimit = countLimit
        directory = try TemporaryDirectory()
        metrics = CacheMetrics(store: kind.rawValue, feature: "test")
        store = Self.makeStore(
            kind, clock: clock, directory: directory, metrics: metrics,
            byteLimit: byteLimit, countLimit: countLimit)
    }

    static func makeStore(
        _ kind: StoreKind, clock: ManualClock, directory: TemporaryDirectory, metrics: CacheMetrics,
        byteLimit: Int, countLimit: Int
    ) -> any CacheStore<Data> {
        switch kind {
        case .memory:
            MemoryStore<Data>(
                limits: .init(countLimit: countLimit, costLimit: byteLimit), clock: clock,
                metrics: metrics, cost: { $0.count })
        case .disk:
            DiskStore(
                configuration: .init(directory: directory.url, byteLimit: byteLimit), clock: clock,
                metrics: metrics)
        }
    }

    /// A second store over the same folder, as after a restart.
    func reopened() -> any CacheStore<Data> {
        Self.makeStore(
            kind, clock: clock, directory: directory, metrics: metrics,
            byteLimit: byteLimit, countLimit: countLimit)
    }

    /// Metadata stored now, expiring after `seconds` (never when nil).
    func metadata(expiresIn seconds: TimeInterval? = 60, scope: CacheScope = .shared) -> CacheEntryMetadata {
        let now = clock.now()
        return CacheEntryMetadata(
            storedAt: now, expiresAt: seconds.map { now.addingTimeInterval($0) },
            timeout: seconds.map { .seconds($0) } ?? .never, scope: scope)
    }

    /// Stores `text` under `key`. For the memory store, cost is the value's size only, so keys here
    /// are one byte long when a test counts bytes.
    func put(_ key: String, _ text: String, expiresIn seconds: TimeInterval? = 60, scope: CacheScope = .shared) throws {
        try store.set(Data(text.utf8), forKey: key, metadata: metadata(expiresIn: seconds, scope: scope))
    }

    func text(_ key: String, requester: String? = nil) throws -> String? {
        try store.get(key, requester: requester).map { String(decoding: $0.value, as: UTF8.self) }
    }

    deinit { directory.remove() }
}
