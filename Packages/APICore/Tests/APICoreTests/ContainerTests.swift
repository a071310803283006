import APICore
import CacheKit
import CacheKitTesting
import Testing

/// Two-phase registration, typed resolution and the errors that name who is involved.
@Suite(.timeLimit(.minutes(10))) struct ContainerTests {
    struct Ledger: Sendable { var name = "ledger" }
    struct Statements: Sendable { var ledger: Ledger }
    struct Unregistered: Sendable {}
    /// What a kit saw in phase 2.
    final class Connected: Sendable {
        private let state = Locked<Ledger?>(nil)
        var ledger: Ledger? { state.withLock { $0 } }
        func record(_ ledger: Ledger) { state.withLock { $0 = ledger } }
    }

    /// Provides `Statements`, built from the ledger another kit provides.
    struct StatementsKit: FeatureKit {
        let name = "statements"
        let connected: Connected
        func register(in registry: KitRegistry) throws(ContainerError) {
            try registry.register(Statements.self) { resolver in Statements(ledger: try resolver.resolve(Ledger.self)) }
            registry.require(Ledger.self)
            registry.addClearingParticipant(RecordingParticipant(name: "statements"))
            registry.addRefetchRule(
                MutationRefetchRule(
                    mutation: "MakePayment", strategy: .criticalAndBackground(critical: ["Balance"], background: ["Dashboard"])))
            registry.setDefaultTimeout(.seconds(30), forFeature: "statements")
        }
        func connect(using resolver: KitResolver) throws(ContainerError) {
            connected.record(try resolver.resolve(Ledger.self))
        }
    }

    struct LedgerKit: FeatureKit {
        let name = "ledger"
        var typenames: Set<String> = ["Account"]
        func register(in registry: KitRegistry) throws(ContainerError) {
            try registry.register(Ledger.self) { _ in Ledger() }
            try registry.addCacheKeyProvider(Keys(typenames: typenames))
        }
    }

    struct Keys: CacheKeyProvider {
        let typenames: Set<String>
        func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
            object["id"]?.stringValue.map { NormalizedCacheKey("\(typename):\($0)") }
        }
    }

    func makeContainer() -> DependencyContainer {
        DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()))
    }

    @Test(arguments: [false, true])
    func installationOrderDoesNotMatter(ledgerFirst: Bool) throws {
        let container = makeContainer()
        let connected = Connected()
        let kits: [any FeatureKit] = [StatementsKit(connected: connected), LedgerKit()]
        try container.install(ledgerFirst ? kits.reversed() : kits)
        try container.verify()
        #expect(try container.resolver(for: "app").resolve(Statements.self).ledger.name == "ledger")
        #expect(connected.ledger?.name == "ledger")
        #expect(container.cacheManager.participantNames == ["statements"])
        #expect(container.refetchRules(forMutation: "MakePayment").count == 1)
        #expect(container.defaultTimeout(forFeature: "statements") == .seconds(30))
        #expect(
            container.cacheKeyProvider(forTypename: "Account")?.cacheKey(for: ["id": .string("1")], typename: "Account")
                == NormalizedCacheKey("Account:1"))
    }

    @Test func aMissingRegistrationIsAnErrorNamingTheTypeAndTheKit() throws {
        let container = makeContainer()
        #expect(throws: ContainerError.missingRegistration(type: String(reflecting: Ledger.self), requestedBy: "statements")) {
            try container.install([StatementsKit(connected: Connected())])
        }
        #expect(throws: ContainerError.missingRegistration(type: String(reflecting: Unregistered.self), requestedBy: "app")) {
            try container.resolver(for: "app").resolve(Unregistered.self)
        }
    }

    @Test func verifyReportsEveryUnresolvableRegistrationAtStartUp() throws {
        struct NeedsLedger: FeatureKit {
            let name = "needs-ledger"
            func register(in registry: KitRegistry) throws(ContainerError) {
                try registry.register(Statements.self) { Statements(ledger: try $0.resolve(Ledger.self)) }
                registry.require(Unregistered.self)
            }
        }
        let container = makeContainer()
        try container.install([NeedsLedger()])
        #expect(
            throws: ContainerError.verificationFailed(
                [
                    .missingRegistration(type: String(reflecting: Ledger.self), requestedBy: "needs-ledger"),
                    .missingRegistration(type: String(reflecting: Unregistered.self), requestedBy: "needs-ledger"),
                ].sorted { $0.description < $1.description })
        ) {
            try container.verify()
        }
    }

    @Test func twoKitsClaimingOneTypenameAreReportedAtRegistration() throws {
        struct OtherLedgerKit: FeatureKit {
            let name = "other"
            func register(in registry: KitRegistry) throws(ContainerError) {
                try registry.addCacheKeyProvider(Keys(typenames: ["Account", "Card"]))
            }
        }
        let container = makeContainer()
        #expect(throws: ContainerError.duplicateTypename("Account", kits: ["ledger", "other"])) {
            try container.install([LedgerKit(), OtherLedgerKit()])
        }
    }

    @Test func aFailedInstallLeavesNothingBehindAndCanBeRetried() throws {
        struct ClashingKit: FeatureKit {
            let name = "clashing"
            func register(in registry: KitRegistry) throws(ContainerError) {
                registry.addClearingParticipant(RecordingParticipant(name: "clashing"))
                try registry.addCacheKeyProvider(Keys(typenames: ["Account"]))
            }
        }
        let unified = UnifiedCacheManager(timeouts: CacheTimeoutPolicy())
        let container = DependencyContainer(cacheManager: unified)
        let connected = Connected()
        #expect(throws: ContainerError.duplicateTypename("Account", kits: ["ledger", "clashing"])) {
            try container.install([StatementsKit(connected: connected), LedgerKit(), ClashingKit()])
        }
        // Nothing of the failed install remains: kits, services, typenames, rules, participants.
        #expect(container.kitNames.isEmpty)
        #expect(container.claimedTypenames.isEmpty)
        #expect(container.refetchRules(forMutation: "MakePayment").isEmpty)
        #expect(container.defaultTimeout(forFeature: "statements") == nil)
        #expect(unified.participantNames.isEmpty)
        #expect(throws: ContainerError.self) { try container.resolver(for: "app").resolve(Ledger.self) }
        // The same kits, without the one that clashed, install cleanly.
        try container.install([StatementsKit(connected: connected), LedgerKit()])
        #expect(container.kitNames == ["statements", "ledger"])
        #expect(unified.participantNames == ["statements"])
        #expect(try container.resolver(for: "app").resolve(Statements.self).ledger.name == "ledger")
    }

    @Test func aKitClaimingATypenameTwiceIsToldSoOnce() throws {
        struct TwiceKit: FeatureKit {
            let name = "twice"
            func register(in registry: KitRegistry) throws(ContainerError) {
                try registry.addCacheKeyProvider(Keys(typenames: ["Note"]))
                try registry.addCacheKeyProvider(Keys(typenames: ["Note"]))
            }
        }
        let error = #expect(throws: ContainerError.self) { try makeContainer().install([TwiceKit()]) }
        #expect(error == .duplicateTypename("Note", kits: ["twice"]))
        #expect(error?.description.contains("claimed twice by kit 'twice'") == true, "\(String(describing: error))")
        #expect(error?.description.contains("twice, twice") == false)
    }

    @Test func duplicateTypesKitsAndCyclesAreErrors() throws {
        let container = makeContainer()
        try container.install([LedgerKit()])
        #expect(throws: ContainerError.duplicateKit("ledger")) { try container.install([LedgerKit()]) }
        #expect(throws: ContainerError.duplicateRegistration(type: String(reflecting: Ledger.self), kits: ["ledger", "app"])) {
            try container.registry(for: "app").register(Ledger.self) { _ in Ledger() }
        }
        struct A: Sendable {}
        struct B: Sendable {}
        try container.registry(for: "app").register(A.self) {
            _ = try $0.resolve(B.self)
            return A()
        }
        try container.registry(for: "app").register(B.self) {
            _ = try $0.resolve(A.self)
            return B()
        }
        #expect(
            throws: ContainerError.dependencyCycle([String(reflecting: A.self), String(reflecting: B.self), String(reflecting: A.self)])
        ) {
            try container.resolver(for: "app").resolve(A.self)
        }
    }
}
