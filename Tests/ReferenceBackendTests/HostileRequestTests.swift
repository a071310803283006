import APICore
import CacheKitTesting
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// Security review three, finding 1, as a class: a value a client chose (an id, a fault rule's numbers, a
/// query's nesting) never traps the backend: the route answers, with a 400 and one sentence where the value
/// is refused, and the server stays up for every user.
@Suite(.timeLimit(.minutes(10))) struct HostileRequestTests {
    static let ids = ["c-1", "c-9223372036854775808", "c9223372036854775807", "c", "-", "c-0", "ç-7", "c+3"]

    @Test func aContactWithAHostileIdIsEnrichedAndTheServerStaysUp() async throws {
        try await withBackend(5) { fixture in
            let token = try await fixture.token()
            for id in Self.ids {
                let body = #"{"id":"\#(id)","displayName":"Mallory","phones":[],"emails":[]}"#
                let created = try await fixture.send(.post, "/contacts", json: body, token: token)
                #expect(created.status == 201, "creating \(id): \(created.status)")
                let path = "/contacts/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id) + "/enrichment"
                let enrichment = try await fixture.get(path, token: token)
                // A path the router reads back as another id (non-ASCII, `+`) may not find it; it never traps.
                #expect(
                    enrichment.status == 200 || (id.contains { !$0.isASCII || $0 == "+" } && enrichment.status == 404),
                    "\(id)'s enrichment: \(enrichment.status)")
                // The server is still there for everyone.
                let health = try await fixture.get("/health")
                #expect((200..<300).contains(health.status), "the server died on \(id)")
            }
        }
    }

    @Test func faultRulesOutOfRangeAreRefusedAndTheServerStaysUp() async throws {
        try await withBackend(5) { fixture in
            let hostile = [
                #"[{"errorRate":1e300}]"#, #"[{"errorRate":-1e300}]"#, #"[{"errorRate":1e19}]"#, #"[{"status":1000}]"#,
                #"[{"status":-1}]"#, #"[{"latencyMs":9223372036854775807}]"#, #"[{"latencyMs":-5}]"#,
                "[" + Array(repeating: #"{"latencyMs":1}"#, count: 101).joined(separator: ",") + "]", "not json",
            ]
            for rules in hostile {
                let response = try await fixture.send(.put, "/admin/faults", json: rules)
                #expect(response.status == 400, "\(rules.prefix(60)): \(response.status)")
                let catalog = try await fixture.get("/api/funnels/catalog?limit=1")
                #expect(catalog.status == 200, "the server did not answer after \(rules.prefix(60))")
            }
            // A rule within range still applies.
            #expect(try await fixture.send(.put, "/admin/faults", json: #"[{"pathPrefix":"/api/funnels","status":503}]"#).status == 204)
            #expect(try await fixture.get("/api/funnels/catalog?limit=1").status == 503)
        }
    }

    @Test func aDeeplyNestedGraphQLQueryIsRefusedAndTheServerStaysUp() async throws {
        try await withBackend(5) { fixture in
            let token = try await fixture.token()
            for query in [
                String(repeating: "{a", count: 100_000), "{a(x:" + String(repeating: "[", count: 100_000) + "}",
                String(repeating: "x", count: 200_000),
            ] {
                let body = try JSONEncoder().encode(["query": query])
                let response = try await fixture.send(.post, "/graphql", json: String(decoding: body, as: UTF8.self), token: token)
                #expect(response.status == 400, "a hostile query: \(response.status)")
            }
            let fine = try await fixture.send(.post, "/graphql", json: #"{"query":"{ accounts { id } }"}"#, token: token)
            #expect(fine.status == 200)
        }
    }

    /// Found by the request fuzzer: a GraphQL document that does not parse was a 500.
    @Test func aQueryThatDoesNotParseIsA400() async throws {
        try await withBackend(5) { fixture in
            let token = try await fixture.token()
            for query in ["c-1", "{", "query { nope }", "mutation M { makePayment }", ""] {
                let body = JSONValue.object(["query": .string(query)]).serialized()
                let answer = try await fixture.send(.post, "/graphql", json: String(decoding: body, as: UTF8.self), token: token)
                #expect(answer.status == 400 || answer.status == 200, "\(query): \(answer.status)")
                if answer.status == 400 { #expect(try JSONValue.parse(answer.body)["error"]?["code"]?.stringValue == "INVALID_QUERY") }
            }
            #expect((200..<300).contains(try await fixture.get("/health").status))
        }
    }

    /// Found by a review of the fuzzer: a funnel added with a pillar that does not exist broke the database's
    /// constraint, a 500. It is a 400 with one sentence.
    @Test func aFunnelWithAnUnknownPillarIsA400() async throws {
        try await withBackend(5) { fixture in
            let answer = try await fixture.send(.post, "/admin/funnels", json: #"{"slug":"x-1","title":"X","pillarId":"nope"}"#)
            #expect(answer.status == 400)
            #expect(try JSONValue.parse(answer.body)["error"]?["code"]?.stringValue == "UNKNOWN_PILLAR")
            #expect(try fixture.backend.catalog.funnel(slug: "x-1") == nil)
        }
    }
}
