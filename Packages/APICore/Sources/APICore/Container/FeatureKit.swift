/// A feature kit as the app's composition root installs it: one value per kit, registered in two
/// phases so that the order in which kits are installed never matters.
///
/// ```swift
/// struct RemindersClient: Sendable { let rest: RESTClient }    // the kit's use cases
///
/// struct RemindersFeatureKit: FeatureKit {
///     let name = "reminders"
///     let cache: CacheManager<[String]>                          // the kit's own cache
///     func register(in registry: KitRegistry) throws(ContainerError) {
///         try registry.register(RemindersClient.self) { resolver in
///             RemindersClient(rest: try resolver.resolve(RESTClient.self))
///         }
///         registry.addClearingParticipant(cache)                  // cleared at logout with the rest
///         registry.setDefaultTimeout(.seconds(300), forFeature: "reminders")
///     }
/// }
/// ```
///
/// Phase 1, ``register(in:)``, declares what the kit provides: services and use cases (as lazy
/// factories), cache-key providers, clearing participants, mutation refetch rules and timeout
/// defaults. Phase 2, ``connect(using:)``, runs once every kit has registered, and is where a kit
/// looks up what it needs from the others. Factories run lazily, so a factory may resolve a service
/// that a kit installed later provides.
public protocol FeatureKit: Sendable {
    /// The kit's name, unique in the app (`catalog`, `accounts`); errors and reports use it.
    var name: String { get }

    /// Phase 1: registers what the kit provides.
    /// - Throws: ``ContainerError`` when something it registers is already claimed by another kit.
    func register(in registry: KitRegistry) throws(ContainerError)

    /// Phase 2: looks up what the kit needs from the others, once every kit has registered.
    /// - Throws: ``ContainerError/missingRegistration(type:requestedBy:)`` for a need nobody provides.
    func connect(using resolver: KitResolver) throws(ContainerError)
}

extension FeatureKit {
    /// Needs nothing from other kits.
    public func connect(using resolver: KitResolver) throws(ContainerError) {}
}
