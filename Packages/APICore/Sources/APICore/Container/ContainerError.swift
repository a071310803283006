/// Why a kit could not be registered or a service could not be resolved. Every case names the type
/// and the kit involved, so a start-up failure says exactly what to fix.
public enum ContainerError: Error, Hashable, CustomStringConvertible {
    /// `requestedBy` asked for a type that no kit registered.
    case missingRegistration(type: String, requestedBy: String)
    /// Two kits registered the same type.
    case duplicateRegistration(type: String, kits: [String])
    /// Two kits claimed the same GraphQL typename with their cache-key providers.
    case duplicateTypename(String, kits: [String])
    /// Two kits share a name.
    case duplicateKit(String)
    /// Resolving a type needed itself, through the types listed.
    case dependencyCycle([String])
    /// A factory threw while building a type.
    case factoryFailed(type: String, kit: String, reason: String)
    /// ``DependencyContainer/verify()`` found these problems.
    case verificationFailed([ContainerError])

    /// A sentence that names what is wrong and who is involved.
    public var description: String {
        switch self {
        case .missingRegistration(let type, let kit):
            "\(type) is not registered, but kit '\(kit)' needs it: register it in some kit's register(in:)"
        case .duplicateRegistration(let type, let kits):
            "\(type) is registered by more than one kit: \(kits.joined(separator: ", "))"
        case .duplicateTypename(let typename, let kits) where kits.count == 1:
            "GraphQL type '\(typename)' is claimed twice by kit '\(kits[0])': give each typename one "
                + "CacheKeyProvider (one provider can key several typenames)"
        case .duplicateTypename(let typename, let kits):
            "GraphQL type '\(typename)' is claimed by kits \(kits.map { "'\($0)'" }.joined(separator: " and ")): "
                + "one kit owns each typename; let the other resolve the owner's use cases through the container"
        case .duplicateKit(let name):
            "two kits are named '\(name)'"
        case .dependencyCycle(let path):
            "dependency cycle: \(path.joined(separator: " -> "))"
        case .factoryFailed(let type, let kit, let reason):
            "kit '\(kit)' could not build \(type): \(reason)"
        case .verificationFailed(let problems):
            "the container does not resolve:\n" + problems.map { "- \($0.description)" }.joined(separator: "\n")
        }
    }
}
