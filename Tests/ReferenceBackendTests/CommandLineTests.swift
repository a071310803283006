import APICore
import ArgumentParser
import Testing

@testable import mib

/// The subcommands parse their arguments and refuse bad ones with a clear message.
@Suite(.timeLimit(.minutes(10))) struct CommandLineTests {
    @Test func serveParsesItsOptions() throws {
        let serve = try ServeCommand.parse(["--port", "0", "--database", "/tmp/x.sqlite", "--latency", "20", "--error-rate", "0.1"])
        #expect(serve.port == 0 && serve.database == "/tmp/x.sqlite" && serve.latency == 20 && serve.errorRate == 0.1)
        #expect(try DemoCommand.parse(["--json"]).json)
    }

    @Test(arguments: [
        (["--port", "70000"], "--port must be from 0 to 65535"),
        (["--error-rate", "2"], "--error-rate must be from 0 to 1"),
        (["--latency=-5"], "--latency must not be negative"),
        (["--port", "eighty"], "eighty"),
    ])
    func serveRefusesBadValues(_ arguments: [String], _ message: String) {
        expectRefused(ServeCommand.self, arguments, message)
    }

    @Test func proxyTakesCallerFields() throws {
        let proxy = try ProxyCommand.parse([
            "--upstream", "https://api.example.com", "--caller-field", "X-Tenant", "--caller-field", "X-User",
        ])
        #expect(proxy.callerFields == ["X-Tenant", "X-User"])
        #expect(throws: (any Error).self) {
            try ProxyCommand.parse(["--upstream", "https://api.example.com", "--caller-field", "bad name"])
        }
    }

    @Test func proxyParsesItsOptions() throws {
        let proxy = try ProxyCommand.parse(["--upstream", "https://api.example.com/v1", "--port", "0", "--timeout", "5"])
        #expect(proxy.upstream == "https://api.example.com/v1" && proxy.port == 0 && proxy.timeout == 5)
    }

    @Test(arguments: [
        ([String](), "--upstream"),
        (["--upstream", "ftp://example.com"], "--upstream must be an http or https URL"),
        (["--upstream", "not a url"], "--upstream must be an http or https URL"),
        (["--upstream", "http://example.com", "--port=-1"], "--port must be from 0 to 65535"),
        (["--upstream", "http://example.com", "--timeout", "0"], "--timeout must be positive"),
    ])
    func proxyRefusesBadValues(_ arguments: [String], _ message: String) {
        expectRefused(ProxyCommand.self, arguments, message)
    }

    /// Parsing `arguments` fails with an error whose message contains `message`.
    func expectRefused<Command: ParsableCommand>(_ command: Command.Type, _ arguments: [String], _ message: String) {
        do {
            _ = try command.parse(arguments)
            Issue.record("expected \(arguments) to be refused")
        } catch {
            #expect(MIB.message(for: error).contains(message), "\(MIB.message(for: error))")
        }
    }

    @Test func e2eAndInspectTakeAServer() throws {
        #expect(try EndToEndCommand.parse(["--server", "http://127.0.0.1:8080", "--json"]).json)
        #expect(try InspectCommand.parse([]).server == nil)
        expectRefused(EndToEndCommand.self, ["--server", "127.0.0.1:8080"], "--server must be an http or https URL")
        expectRefused(InspectCommand.self, ["--server", "mailto:a@b.c"], "--server must be an http or https URL")
    }

    @Test func e2ePinsAnHTTPSServerWithABackupPin() throws {
        let pin = "W5O3C15WUZOl2srRXBt9x+I6P1RkaGZNGI0OnTn3Ers="
        let backup = "QAZyDI6sm7C4dKh+XUNuF7weLjsMRpejRFRpp+2f+fs="
        let command = try EndToEndCommand.parse(["--server", "https://127.0.0.1:8443", "--pin", pin, "--pin", backup])
        #expect(try command.pinning()?.pinSets["127.0.0.1"]?.pins == [pin, backup])
        expectRefused(EndToEndCommand.self, ["--server", "https://127.0.0.1:8443", "--pin", pin], "has a single pin")
        expectRefused(
            EndToEndCommand.self, ["--server", "http://127.0.0.1:8080", "--pin", pin, "--pin", backup], "--pin needs an https --server")
        expectRefused(EndToEndCommand.self, ["--pin", pin, "--pin", backup], "--pin needs an https --server")
    }

    /// Without the `TLS` trait (the default build, with no HTTPS serving and no pinning), asking for TLS fails
    /// at once with one sentence saying how to build it in; with the trait, both options go through.
    @Test func tlsOptionsNeedTheTLSTraitAndSaySo() async throws {
        let pins = ["W5O3C15WUZOl2srRXBt9x+I6P1RkaGZNGI0OnTn3Ers=", "QAZyDI6sm7C4dKh+XUNuF7weLjsMRpejRFRpp+2f+fs="]
        let policy = try PinningPolicy([.init(host: "127.0.0.1", pins: Set(pins))])
        #if TLS
            #expect(TLSSupport.isBuiltIn)
            #expect(throws: Never.self) { try TLSSupport.pinnedTransport(policy) }
        #else
            #expect(!TLSSupport.isBuiltIn)
            for attempt in [
                { _ = try TLSSupport.pinnedTransport(policy) },
                { _ = try TLSSupport.https(certificateChainFile: "chain.pem", privateKeyFile: "key.pem") },
            ] as [() throws -> Void] {
                do {
                    try attempt()
                    Issue.record("TLS without the trait was not refused")
                } catch {
                    #expect(MIB.message(for: error).contains("needs mib built with TLS: run it as `swift run --traits TLS mib"))
                }
            }
            let serve = try ServeCommand.parse(["--port", "0", "--tls-certificate", "chain.pem", "--tls-key", "key.pem"])
            await #expect(throws: ValidationError.self) { try await serve.run() }
        #endif
    }

    @Test func syncReadsItsBudgetInSecondsMillisecondsOrMinutes() throws {
        #expect(try SyncCommand.parse(["--budget", "2m", "--json"]).json)
        #expect(SyncCommand.seconds("30s") == 30 && SyncCommand.seconds("500ms") == 0.5 && SyncCommand.seconds("2m") == 120)
        #expect(SyncCommand.seconds("45") == 45)
        expectRefused(SyncCommand.self, ["--budget", "0s"], "--budget takes a positive duration")
        expectRefused(SyncCommand.self, ["--budget", "soon"], "--budget takes a positive duration")
    }

    @Test func unknownSubcommandsAreRefused() {
        #expect(throws: (any Error).self) { try MIB.parseAsRoot(["dance"]) }
    }
}
