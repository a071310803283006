#if canImport(Network)
    import Network

    /// Connectivity from the system's network path (`NWPathMonitor`), on Apple platforms: online when the
    /// path is satisfied. It knows whether a network exists, not whether the server answers; combine it
    /// with ``TransportConnectivity`` when that matters.
    public final class PathMonitorConnectivity: Connectivity {
        private let monitor = NWPathMonitor()
        private let broadcast = ConnectivityBroadcast()

        /// Starts monitoring on a private queue.
        public init() {
            monitor.pathUpdateHandler = { [weak self] path in
                self?.update(path.status == .satisfied ? .online : .offline)
            }
            monitor.start(queue: DispatchQueue(label: "APICore.PathMonitorConnectivity"))
        }

        deinit { monitor.cancel() }

        /// The status now.
        public var status: ConnectivityStatus { broadcast.status }

        /// The status now, then every change.
        public func statusUpdates() -> AsyncStream<ConnectivityStatus> { broadcast.updates() }

        private func update(_ status: ConnectivityStatus) {
            broadcast.set(status)
        }
    }
#endif
