import APICore
import CacheKit
import Foundation

/// The normalized GraphQL cache: responses split into records by the kits' key providers, and
/// queries read back from them. A mutation that rewrites `Account:123.balance` is seen by every
/// query that reads it.
public final class NormalizedCache: Sendable {
    /// A query's data as read from the store.
    public struct ReadResult: Sendable, Hashable {
        /// The data, shaped like the query (aliases as response keys).
        public var data: [String: JSONValue]
        /// The oldest write among the fields read: the query is fresh while this is younger than its timeout.
        public var oldestWrite: Date?
        /// Every field read, for watchers (empty unless asked for).
        public var dependencies: Set<FieldPath>
    }

    /// Where records are kept.
    public let store: any NormalizedRecordStore
    private let clock: any CacheClock
    private let keyProvider: @Sendable (String, [String: JSONValue]) -> NormalizedCacheKey?

    /// Creates a cache.
    /// - Parameters:
    ///   - store: in memory by default.
    ///   - clock: stamps each field's write.
    ///   - keyProvider: the provider that claimed a typename (the container's
    ///     `DependencyContainer/cacheKeyProvider(forTypename:)`), or `nil` to key by path.
    public init(
        store: any NormalizedRecordStore = InMemoryRecordStore(), clock: any CacheClock = SystemClock(),
        keyProvider: @escaping @Sendable (String) -> (any CacheKeyProvider)?
    ) {
        self.store = store
        self.clock = clock
        self.keyProvider = { typename, object in keyProvider(typename)?.cacheKey(for: object, typename: typename) }
    }

    /// Writes an operation's response data into the store; returns the fields that changed.
    @discardableResult
    public func write(
        _ data: [String: JSONValue], for operation: GraphQLOperation,
        variables: [String: JSONValue] = [:]
    ) throws -> Set<FieldPath> {
        try store.merge(normalize(data, for: operation, variables: variables))
    }

    /// The records an operation's response data splits into, stamped now, without writing them.
    public func normalize(
        _ data: [String: JSONValue], for operation: GraphQLOperation,
        variables: [String: JSONValue] = [:]
    ) -> [String: NormalizedRecord] {
        var normalizer = Normalizer(variables: variables, now: clock.now(), keyProvider: keyProvider)
        let root = operation.kind == .mutation ? RootKey.mutation : RootKey.query
        normalizer.write(data, selections: operation.selections, into: root, accountId: nil)
        return normalizer.records
    }

    /// Reads a query's data from the store.
    /// - Throws: ``CacheReadMiss/missing(path:)`` when a field is not stored;
    ///   ``CacheReadMiss/corrupt(path:reason:)`` when a stored value does not fit (the record is then
    ///   removed, so the next fetch replaces it).
    /// - Parameters:
    ///   - operation: the query whose selections are read.
    ///   - variables: the values of its variables (they are part of the fields' keys).
    ///   - trackingDependencies: whether to list the fields read (watchers need them; a plain fetch
    ///     does not, and skipping them makes a read much cheaper).
    public func read(
        _ operation: GraphQLOperation, variables: [String: JSONValue] = [:],
        trackingDependencies: Bool = true
    ) throws(CacheReadMiss) -> ReadResult {
        var reader = RecordReader(variables: variables, tracksDependencies: trackingDependencies, record: recordLoader)
        do {
            let data = try reader.read(operation.selections, from: RootKey.query)
            return ReadResult(data: data, oldestWrite: reader.oldestWrite, dependencies: reader.dependencies)
        } catch {
            if let record = reader.corruptRecord {
                _ = try? store.removeRecords { key, _ in key == record }
            }
            throw error
        }
    }

    /// Decodes a query's data into `T` straight from the records (``RecordDecoding``): only the fields `T`
    /// decodes are read. Returns the value and the oldest write among those fields.
    /// - Throws: ``CacheReadMiss`` when a record or field `T` needs is not stored; `DecodingError` when a
    ///   stored value does not fit `T`.
    func decode<T: Decodable>(_ type: T.Type, _ operation: GraphQLOperation, variables: [String: JSONValue]) throws -> (
        value: T, oldestWrite: Date?
    ) {
        let progress = RecordDecoding.Progress(variables: variables, record: recordLoader)
        let value = try RecordDecoding.decode(T.self, from: RootKey.query, plan: operation.plan, progress: progress)
        return (value, progress.oldestWrite)
    }

    /// Reads one record for a reader: a store failure is a miss, a corrupt row names its record.
    private var recordLoader: (String) throws(CacheReadMiss) -> NormalizedRecord? {
        let store = self.store
        return { key throws(CacheReadMiss) in
            do {
                return try store.record(forKey: key)
            } catch RecordStoreError.corrupt(_, let reason) {
                throw .corrupt(path: key, reason: reason)
            } catch {
                throw .missing(path: key)
            }
        }
    }

    /// Removes every record owned by exactly this account, and the fields that referenced them;
    /// returns the removed fields.
    @discardableResult
    public func clear(forAccountId accountId: String) throws -> Set<FieldPath> {
        try store.removeRecords { _, record in record.accountId == accountId }
    }

    /// Removes one object (and the references to it); returns the removed fields.
    @discardableResult
    public func removeObject(forKey key: String) throws -> Set<FieldPath> {
        try store.removeRecords { candidate, _ in candidate == key }
    }

    /// Removes the root fields a query selects, so reading it misses; returns the removed
    /// root fields. Objects stay: other queries may read them.
    @discardableResult
    public func removeRootFields(of operation: GraphQLOperation, variables: [String: JSONValue] = [:]) throws -> Set<FieldPath> {
        var names: Set<String> = []
        func collect(_ selections: [QuerySelection]) {
            for selection in selections {
                switch selection {
                case .field(let field) where field.name != "__typename": names.insert(FieldKey.make(field, variables: variables))
                case .field: break
                case .fragment(_, let inner): collect(inner)
                }
            }
        }
        collect(operation.selections)
        return try store.removeFields([RootKey.query: names])
    }

    /// Removes what one page of a cursor-paginated query holds under its own cursor: every field it
    /// reads whose arguments use the `cursor` variable (`transactions(after:"c1",first:7)` of
    /// `Account:100`), with this page's values. The objects and the other fields it reads stay: other
    /// queries (the first page, the account's balance) read them too. A page that is not fully cached
    /// removes the fields it can still find.
    @discardableResult
    func removePageFields(of operation: GraphQLOperation, variables: [String: JSONValue], cursor: String) throws
        -> Set<FieldPath>
    {
        var pageKeys: Set<String> = []
        func uses(_ argument: QueryArgument) -> Bool {
            switch argument {
            case .variable(let name): name == cursor
            case .literal, .enumValue: false
            case .list(let items): items.contains(where: uses)
            case .object(let fields): fields.values.contains(where: uses)
            }
        }
        func collect(_ selections: [QuerySelection]) {
            for selection in selections {
                switch selection {
                case .field(let field):
                    if field.arguments.values.contains(where: uses) { pageKeys.insert(FieldKey.make(field, variables: variables)) }
                    collect(field.selections)
                case .fragment(_, let inner): collect(inner)
                }
            }
        }
        collect(operation.selections)
        guard !pageKeys.isEmpty,
            let dependencies = try? read(operation, variables: variables, trackingDependencies: true).dependencies
        else {
            // Not cached as a whole: the root fields that take the cursor are all that can be named.
            return try store.removeFields([RootKey.query: pageKeys])
        }
        var fields: [String: Set<String>] = [:]
        for path in dependencies where pageKeys.contains(path.field) { fields[path.record, default: []].insert(path.field) }
        return try store.removeFields(fields)
    }

    /// Removes everything.
    public func clearAll() throws {
        try store.removeAll()
    }
}
