import APICore
import ArgumentParser
import CacheKit
import Foundation
import Logging
import MIBCore
import ReferenceBackend

/// `mib serve`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the reference backend until interrupted.")

    @Option(help: "The port on 127.0.0.1 (0 picks a free one).")
    var port = 8080

    @Option(help: "The SQLite file (created and seeded when missing).")
    var database = "mib-backend.sqlite"

    @Option(help: "Added latency for every request, in milliseconds.")
    var latency: Int?

    @Option(help: "The fraction of requests answered with 500 (0 to 1).")
    var errorRate: Double?

    @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key; needs `swift run --traits TLS mib`).")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-certificate and --tls-key go together") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        if let errorRate, !(0...1).contains(errorRate) { throw ValidationError("--error-rate must be from 0 to 1") }
        if let latency, latency < 0 { throw ValidationError("--latency must not be negative") }
    }

    func run() async throws {
        var faults: [FaultRule] = []
        if latency != nil || errorRate != nil { faults.append(FaultRule(latencyMs: latency, errorRate: errorRate)) }
        var serverProtocol = ServerProtocol.http
        if let tlsCertificate, let tlsKey {
            serverProtocol = try TLSSupport.https(certificateChainFile: tlsCertificate, privateKeyFile: tlsKey)
        }
        let backend = try await ReferenceBackend.start(
            .init(
                databaseURL: URL(fileURLWithPath: database), port: port, faults: faults, serverProtocol: serverProtocol,
                logger: Logger(label: "mib.serve")))
        print("Reference backend on \(backend.baseURL.absoluteString) (data: \(database)); Ctrl-C stops it.")
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3_600))
        }
        await backend.stop()
    }
}
