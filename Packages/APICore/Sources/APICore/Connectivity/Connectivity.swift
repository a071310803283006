/// Whether the app can reach its servers.
public enum ConnectivityStatus: String, Sendable, Hashable {
    /// A server answered recently.
    case online
    /// The last attempt reached no server.
    case offline
    /// Nothing is known yet (at launch).
    case unknown
}

/// An observable connectivity status: the offline banner, SessionKit's revalidation of a launch
/// that went offline, the mutation queue's replay and the refresh of stale screens all follow it.
///
/// ``TransportConnectivity`` (every platform) infers the status from what the transport sees;
/// `PathMonitorConnectivity` (Apple platforms) follows the system's network path.
public protocol Connectivity: Sendable {
    /// The status now.
    var status: ConnectivityStatus { get }

    /// The status now, then every change, until the consumer stops iterating.
    func statusUpdates() -> AsyncStream<ConnectivityStatus>
}

extension Connectivity {
    /// Runs `action` each time the status goes from ``ConnectivityStatus/offline`` to
    /// ``ConnectivityStatus/online`` (the network returned; a first contact is not a return), until the returned task is cancelled. It observes
    /// from the moment it is called.
    @discardableResult
    public func whenOnlineAgain(_ action: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        let updates = statusUpdates()
        return Task {
            var previous: ConnectivityStatus?
            for await status in updates {
                defer { previous = status }
                guard status == .online, previous == .offline else { continue }
                await action()
            }
        }
    }
}
