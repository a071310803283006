import ArgumentParser
@testable import mib
import Testing

/// The subcommands parse their arguments and refuse bad ones with a clear message.
@Suite struct CommandLineTests {
    @Test func serveParsesItsOptions() throws {
        let serve = try ServeCommand.parse(["--port", "0", "--database", "/tmp/x.sqlite", "--latency", "20", "--error-rate", "0.1"])
        #expect(serve.port == 0 && serve.database == "/tmp/x.sqlite" && serve.latency == 20 && serve.errorRate == 0.1)
        #expect(try DemoCommand.parse(["--json"]).json)
    }

    @Test(arguments: [(["--port", "70000"], "--port must be from 0 to 65535"),
                      (["--error-rate", "2"], "--error-rate must be from 0 to 1"),
                      (["--latency=-5"], "--latency must not be negative"),
                      (["--port", "eighty"], "eighty")])
    func serveRefusesBadValues(_ arguments: [String], _ message: String) {
        do {
            _ = try ServeCommand.parse(arguments)
            Issue.record("expected \(arguments) to be refused")
        } catch {
            #expect(MIB.message(for: error).contains(message), "\(MIB.message(for: error))")
        }
    }

    @Test func unknownSubcommandsAreRefused() {
        #expect(throws: (any Error).self) { try MIB.parseAsRoot(["dance"]) }
    }
}
