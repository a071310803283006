/// Why the demo stopped.
public enum DemoError: Error, Sendable, CustomStringConvertible {
    /// The backend answered something the story did not expect.
    case unexpected(String)

    /// The reason.
    public var description: String {
        switch self {
        case .unexpected(let reason): "demo: \(reason)"
        }
    }
}
