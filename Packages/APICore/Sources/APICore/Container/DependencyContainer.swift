import CacheKit

/// The app's one container: kits register into it, use cases resolve from it, and the clearing
/// participants kits register reach the app's `UnifiedCacheManager`.
///
/// ```swift
/// let container = DependencyContainer(cacheManager: unified)
/// try container.registry(for: "app").register(RESTClient.self) { _ in rest }
/// try container.install([CatalogFeatureKit(sharing: rest.configuration), AccountsFeatureKit()])   // any order
/// try container.verify()                                   // at start-up, not at first tap
/// let catalog = try container.resolver(for: "app").resolve(CatalogClient.self)
/// ```
///
/// Resolution never crashes: a missing type is a thrown ``ContainerError`` naming the type and the
/// kit that asked. Services are built lazily, once, by their factory; a factory should only build
/// (no side effects), because two threads racing to a service's first resolution may both run it
/// and only the first result is kept. ``verify()`` builds everything at start-up, which avoids that.
public final class DependencyContainer: Sendable {
    /// The manager every registered clearing participant joins.
    public let cacheManager: UnifiedCacheManager
    private let state = Locked(State())

    struct Registration: Sendable {
        let kit: String
        let typeName: String
        let factory: @Sendable (KitResolver) throws -> any Sendable
    }

    struct Requirement: Sendable {
        let kit: String
        let type: ObjectIdentifier
        let typeName: String
    }

    struct State: Sendable {
        var kits: [String] = []
        var registrations: [ObjectIdentifier: Registration] = [:]
        var instances: [ObjectIdentifier: any Sendable] = [:]
        var requirements: [Requirement] = []
        var keyProviders: [String: (kit: String, provider: any CacheKeyProvider)] = [:]
        var refetchRules: [MutationRefetchRule] = []
        var timeoutDefaults: [String: CacheTimeout] = [:]
        var staleIndicators: [String: StaleIndicator] = [:]
        var mutationPolicies: [String: MutationPolicy] = [:]
        var syncRunners: [SyncRunner] = []
        /// Clearing participants registered by an install in progress, handed to the
        /// ``UnifiedCacheManager`` only once every kit of it has registered and connected.
        var pendingParticipants: [any CacheClearingParticipant] = []
        /// Whether an install is in progress (participants wait for it to succeed).
        var isInstalling = false
    }

    /// Creates an empty container whose clearing participants join `cacheManager`.
    public init(cacheManager: UnifiedCacheManager) {
        self.cacheManager = cacheManager
    }

    /// Installs kits: every kit's ``FeatureKit/register(in:)`` first, then every kit's
    /// ``FeatureKit/connect(using:)``. The order of `kits` does not matter.
    /// - Throws: the first ``ContainerError`` a kit reports, or ``ContainerError/duplicateKit(_:)``.
    public func install(_ kits: [any FeatureKit]) throws(ContainerError) {
        for kit in kits {
            let isNew = state.withLock { state in
                guard !state.kits.contains(kit.name) else { return false }
                state.kits.append(kit.name)
                return true
            }
            guard isNew else { throw .duplicateKit(kit.name) }
        }
        // All or nothing: a kit that fails leaves the container (and the unified cache manager) as it
        // was before this call, so the install can be retried.
        let before = state.withLock { state -> State in
            var before = state
            before.kits.removeAll { name in kits.contains { $0.name == name } }
            state.isInstalling = true
            return before
        }
        do {
            for kit in kits { try kit.register(in: registry(for: kit.name)) }
            for kit in kits { try kit.connect(using: resolver(for: kit.name)) }
        } catch {
            state.withLock { $0 = before }
            throw error
        }
        let (participants, defaults) = state.withLock { state in
            defer {
                state.pendingParticipants = []
                state.isInstalling = false
            }
            return (state.pendingParticipants, state.timeoutDefaults)
        }
        for participant in participants { cacheManager.register(participant) }
        // One mechanism for every cache: the kits' defaults reach CacheManagers and REST through the policy.
        for (feature, timeout) in defaults { cacheManager.timeouts.setKitDefault(timeout, forFeature: feature) }
    }

    /// The registry through which `kit` declares what it provides. The composition root uses one
    /// named `app` for the services it owns (the REST client, the cache environment).
    public func registry(for kit: String) -> KitRegistry {
        KitRegistry(container: self, kit: kit)
    }

    /// A resolver whose errors name `kit` as the one asking.
    public func resolver(for kit: String) -> KitResolver {
        KitResolver(container: self, kit: kit, path: [])
    }

    /// The installed kits' names, in installation order.
    public var kitNames: [String] { state.withLock { $0.kits } }

    /// Lets every registration and resolved instance go: the composition that owned the container is done
    /// with it (the instances hold the container back through their clients, so it would never be freed).
    /// Rules, keys and timeouts stay; resolving afterwards fails with ``ContainerError/missingRegistration(type:requestedBy:)``.
    public func releaseInstances() {
        state.withLock { state in
            state.registrations.removeAll()
            state.instances.removeAll()
            state.syncRunners.removeAll()
            state.pendingParticipants.removeAll()
        }
    }

    /// Builds every registered service and resolves every declared requirement, reporting every
    /// problem at once. Call it at start-up so a missing registration fails the launch, not a tap.
    /// - Throws: ``ContainerError/verificationFailed(_:)`` listing each problem.
    public func verify() throws(ContainerError) {
        let (registrations, requirements) = state.withLock { ($0.registrations, $0.requirements) }
        var problems: [ContainerError] = []
        for (id, registration) in registrations.sorted(by: { $0.value.typeName < $1.value.typeName }) {
            do {
                _ = try resolve(id, typeName: registration.typeName, kit: registration.kit, path: [])
            } catch {
                problems.append(error)
            }
        }
        for requirement in requirements where registrations[requirement.type] == nil {
            problems.append(.missingRegistration(type: requirement.typeName, requestedBy: requirement.kit))
        }
        guard problems.isEmpty else { throw .verificationFailed(Array(Set(problems)).sorted { $0.description < $1.description }) }
    }

    /// The cache-key provider that claimed `typename`, if any.
    public func cacheKeyProvider(forTypename typename: String) -> (any CacheKeyProvider)? {
        state.withLock { $0.keyProviders[typename]?.provider }
    }

    /// Every claimed typename with the kit that claimed it.
    public var claimedTypenames: [String: String] {
        state.withLock { $0.keyProviders.mapValues(\.kit) }
    }

    /// The refetch rules declared for a mutation, by every kit, in registration order.
    public func refetchRules(forMutation mutation: String) -> [MutationRefetchRule] {
        state.withLock { $0.refetchRules.filter { $0.mutation == mutation } }
    }

    /// The default timeout a kit declared for a feature, if any.
    public func defaultTimeout(forFeature feature: String) -> CacheTimeout? {
        state.withLock { $0.timeoutDefaults[feature] }
    }

    /// Every sync the kits registered, in the order they registered them: what the app's
    /// `BackgroundSync` runs.
    public var syncRunners: [SyncRunner] {
        state.withLock { $0.syncRunners }
    }

    /// Whether a mutation may be queued offline, as its kit declared it; `nil` when undeclared.
    public func mutationPolicy(forMutation name: String) -> MutationPolicy? {
        state.withLock { $0.mutationPolicies[name] }
    }

    /// How a feature's data is labelled once old, as its kit declared it; `StaleIndicator/none`
    /// when it declared nothing (offline data is labelled all the same).
    public func staleIndicator(forFeature feature: String) -> StaleIndicator {
        state.withLock { $0.staleIndicators[feature] ?? .none }
    }

    // MARK: Used by KitRegistry and KitResolver

    func add(_ registration: Registration, for id: ObjectIdentifier) throws(ContainerError) {
        let existing: Registration? = state.withLock { state in
            if let existing = state.registrations[id] { return existing }
            state.registrations[id] = registration
            return nil
        }
        if let existing {
            throw .duplicateRegistration(type: registration.typeName, kits: [existing.kit, registration.kit])
        }
    }

    func mutate<Failure: Error>(_ body: (inout State) throws(Failure) -> Void) throws(Failure) {
        try state.withLock { (state: inout State) throws(Failure) in try body(&state) }
    }

    func resolve(_ id: ObjectIdentifier, typeName: String, kit: String, path: [String]) throws(ContainerError)
        -> any Sendable
    {
        guard !path.contains(typeName) else { throw .dependencyCycle(path + [typeName]) }
        let (registration, instance) = state.withLock { ($0.registrations[id], $0.instances[id]) }
        if let instance { return instance }
        guard let registration else { throw .missingRegistration(type: typeName, requestedBy: kit) }
        let built: any Sendable
        do {
            built = try registration.factory(KitResolver(container: self, kit: registration.kit, path: path + [typeName]))
        } catch let error as ContainerError {
            throw error
        } catch {
            throw .factoryFailed(type: typeName, kit: registration.kit, reason: "\(error)")
        }
        return state.withLock { state in
            if let winner = state.instances[id] { return winner }
            state.instances[id] = built
            return built
        }
    }
}
