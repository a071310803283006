import CacheKit

/// What a kit uses in phase 1 (``FeatureKit/register(in:)``) to declare what it provides. Every
/// registration records the kit's name, so conflicts and missing types name who is involved.
public struct KitRegistry: Sendable {
    let container: DependencyContainer
    /// The kit registering.
    public let kit: String

    /// Registers a service or use case, built lazily by `factory` on first resolution and shared
    /// after.
    ///
    /// - Parameters:
    ///   - type: the type others resolve it by (often a protocol existential).
    ///   - factory: builds it; may resolve what other kits provide, whatever their order.
    /// - Throws: ``ContainerError/duplicateRegistration(type:kits:)`` when another kit registered `type`.
    public func register<T: Sendable>(
        _ type: T.Type, factory: @escaping @Sendable (KitResolver) throws -> T
    ) throws(ContainerError) {
        try container.add(
            .init(kit: kit, typeName: String(reflecting: type), factory: { try factory($0) }),
            for: ObjectIdentifier(type))
    }

    /// Declares that this kit needs `type` from some kit, so ``DependencyContainer/verify()`` fails
    /// at start-up when nobody provides it.
    public func require<T>(_ type: T.Type) {
        container.mutate { state in
            state.requirements.append(.init(kit: kit, type: ObjectIdentifier(type), typeName: String(reflecting: type)))
        }
    }

    /// Adds a GraphQL cache-key provider and claims its typenames.
    /// - Throws: ``ContainerError/duplicateTypename(_:kits:)`` when another kit claimed one of them.
    public func addCacheKeyProvider(_ provider: any CacheKeyProvider) throws(ContainerError) {
        let kit = self.kit
        try container.mutate { (state: inout DependencyContainer.State) throws(ContainerError) in
            for typename in provider.typenames.sorted() {
                if let owner = state.keyProviders[typename] {
                    throw .duplicateTypename(typename, kits: owner.kit == kit ? [kit] : [owner.kit, kit])
                }
            }
            for typename in provider.typenames { state.keyProviders[typename] = (kit, provider) }
        }
    }

    /// Adds a cache to the app's `UnifiedCacheManager`: cleared at logout, per account, re-timed by
    /// settings and counted in statistics. It joins the manager once the whole install succeeded.
    public func addClearingParticipant(_ participant: any CacheClearingParticipant) {
        var registerNow = false
        container.mutate { state in
            if state.isInstalling { state.pendingParticipants.append(participant) } else { registerNow = true }
        }
        if registerNow { container.cacheManager.register(participant) }
    }

    /// Adds a sync the app's `BackgroundSync` runs (``DependencyContainer/syncRunners``): the kit
    /// keeps the same runner for its own "sync now", so the two never overlap.
    public func addSync(_ runner: SyncRunner) {
        container.mutate { $0.syncRunners.append(runner) }
    }

    /// Declares what a mutation makes stale.
    public func addRefetchRule(_ rule: MutationRefetchRule) {
        container.mutate { $0.refetchRules.append(rule) }
    }

    /// Declares whether a mutation (by operation name, or the name a REST change is queued under)
    /// may wait in the `MutationQueue` while offline. Payments and purchases are
    /// ``MutationPolicy/requiresConnection``.
    public func declareMutation(_ name: String, _ policy: MutationPolicy) {
        container.mutate { $0.mutationPolicies[name] = policy }
    }

    /// Declares how a feature's data is labelled for people once it is older than a threshold
    /// ("Last updated 3 h ago", "Estimated"), beside its timeout (its freshness window).
    public func setStaleIndicator(_ indicator: StaleIndicator, forFeature feature: String) {
        container.mutate { $0.staleIndicators[feature] = indicator }
    }

    /// Declares a feature's default timeout (the kit level of the timeout precedence).
    public func setDefaultTimeout(_ timeout: CacheTimeout, forFeature feature: String) {
        container.mutate { $0.timeoutDefaults[feature] = timeout }
    }
}

/// What resolves services: handed to factories and to phase 2 (``FeatureKit/connect(using:)``).
public struct KitResolver: Sendable {
    let container: DependencyContainer
    /// The kit asking, named by errors.
    public let kit: String
    let path: [String]

    /// The registered instance of `type`.
    /// - Throws: ``ContainerError/missingRegistration(type:requestedBy:)`` naming `type` and this kit;
    ///   ``ContainerError/dependencyCycle(_:)``; ``ContainerError/factoryFailed(type:kit:reason:)``.
    public func resolve<T>(_ type: T.Type) throws(ContainerError) -> T {
        let typeName = String(reflecting: type)
        let instance = try container.resolve(ObjectIdentifier(type), typeName: typeName, kit: kit, path: path)
        guard let typed = instance as? T else {
            throw .factoryFailed(type: typeName, kit: kit, reason: "the factory returned \(Swift.type(of: instance))")
        }
        return typed
    }
}
