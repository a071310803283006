import APICore
import Foundation
import HTTPTypes
import Testing

@testable import ReferenceBackend

/// Faults on demand, over real HTTP: a status, an exact error rate, a dropped connection, latency.
@Suite(.timeLimit(.minutes(10))) struct FaultTests {
    @Test func statusAndErrorRateAffectOnlyMatchingPathsAndClear() async throws {
        try await withBackend(5) { fixture in
            let rules =
                #"[{"pathPrefix":"/api/funnels/catalog","errorRate":0.5,"status":503},{"pathPrefix":"/api/funnels/funnel-1","status":500}]"#
            #expect(try await fixture.send(.put, "/admin/faults", json: rules).status == 204)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await fixture.get("/api/funnels/catalog").status) }
            #expect(statuses == [200, 503, 200, 503])
            #expect(try await fixture.get("/api/funnels/funnel-1/definition").status == 500)
            #expect(
                try await fixture.send(.post, "/auth/login", json: #"{"email":"alice@example.com","password":"Password1"}"#).status == 200)
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            #expect(try await fixture.get("/api/funnels/funnel-1/definition").status == 200)
        }
    }

    /// Security review, finding 11: a page the developer visits cannot drive the backend's admin routes
    /// (cross-site) nor read it after rebinding a domain to 127.0.0.1.
    @Test func aCrossSiteOrReboundRequestCannotChangeOrReadTheBackend() async throws {
        try await withBackend(5) { fixture in
            let rules = #"[{"pathPrefix":"/api/funnels/catalog","status":503}]"#
            let url = try #require(URL(string: fixture.backend.baseURL.absoluteString + "/admin/faults"))
            let transport = URLSessionTransport()
            for forged: HTTPFields in [
                [.contentType: "application/json", .origin: "https://evil.example"],
                [.contentType: "application/json", HTTPField.Name("Host")!: "evil.example"],
            ] {
                let response = try await transport.send(
                    TransportRequest(method: .put, url: url, headerFields: forged, body: Data(rules.utf8)))
                #expect(response.status == 403, "\(forged)")
            }
            #expect(try await fixture.get("/api/funnels/catalog").status == 200, "no fault was installed")
            // A rebound name, and look-alikes of the loopback names: only the exact names pass.
            for host in ["rebound.example:80", "localhost.attacker.example", "127.0.0.1.attacker.example:80", "localhostx", "[::1].evil"] {
                let rebound = try await transport.send(
                    TransportRequest(method: .get, url: url, headerFields: [HTTPField.Name("Host")!: host]))
                #expect(rebound.status == 403, "\(host)")
            }
            // The same origin (or no browser at all) still administers it.
            let own = "http://127.0.0.1:\(fixture.backend.baseURL.port ?? 0)"
            let allowed = try await transport.send(
                TransportRequest(
                    method: .put, url: url, headerFields: [.contentType: "application/json", .origin: own], body: Data(rules.utf8)))
            #expect(allowed.status == 204)
            #expect(try await fixture.get("/api/funnels/catalog").status == 503)
        }
    }

    @Test func aDroppedConnectionIsATransportError() async throws {
        try await withBackend(5) { fixture in
            _ = try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/api","dropConnection":true}]"#)
            await #expect(throws: TransportError.self) { try await fixture.get("/api/funnels/catalog") }
            #expect(try await fixture.send(.delete, "/admin/faults", json: "").status == 204)
            #expect(try await fixture.get("/api/funnels/catalog").status == 200)
        }
    }

    @Test func latencyAddsUpOverMatchingRulesAndAdminIsExempt() {
        let faults = Faults([FaultRule(latencyMs: 20), FaultRule(pathPrefix: "/graphql", latencyMs: 30, status: 502)])
        let graphQL = faults.decide(path: "/graphql")
        #expect(graphQL.latency == .milliseconds(50))
        guard case .fail(502) = graphQL.action else {
            Issue.record("expected a 502")
            return
        }
        #expect(faults.decide(path: "/api/me").latency == .milliseconds(20))
        #expect(faults.decide(path: "/admin/faults").latency == .zero)
    }

    /// The guard's authority check at its edges: a loopback name followed by nothing or by `:` and ASCII digits.
    @Test(arguments: ["[::1", "[::1.evil", "localhost:", "127.0.0.1:", "[::1]:", "[::1].8080", "[::1]x1", "localhost:١٢٣"])
    func anAuthorityNotExactlyALoopbackNameAndAPortIsRefused(_ authority: String) {
        #expect(!LoopbackGuard<BackendContext>.isLoopback(authority: authority), "\(authority)")
    }

    @Test(arguments: ["127.0.0.1", "localhost:8080", "[::1]", "[::1]:8080", "LOCALHOST:1"])
    func theLoopbackNamesPassWithOrWithoutAPort(_ authority: String) {
        #expect(LoopbackGuard<BackendContext>.isLoopback(authority: authority), "\(authority)")
    }
}
