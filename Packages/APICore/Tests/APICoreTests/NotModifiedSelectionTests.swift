import APICore
import APICoreREST
import APICoreTestServer
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// A 304 updates only the stored response it speaks of (RFC 9111 §4.3.4), through `RESTClient.forward`, the path
/// `mib proxy` answers with. A stored response is never freshened and served for another representation: neither when
/// the caller's own `If-None-Match` names the new one, nor when the server's 304 carries another strong validator.
@Suite(.timeLimit(.minutes(10))) struct NotModifiedSelectionTests {
    static let modified = "Thu, 01 Jan 2026 00:00:00 GMT"

    /// The document's version the server holds: 1 or 2.
    final class Origin: Sendable {
        let version = Locked(1)
        let requests = Locked<[HTTPFields]>([])
    }

    @Test func aCallersOwnConditionIsNotTakenForTheCachesValidation() async throws {
        let origin = Origin()
        try await withTestServer({ router in
            router.get("doc") { request, _ in
                origin.requests.withLock { $0.append(request.headers) }
                guard origin.version.withLock({ $0 }) == 2 else {
                    return reply(.ok, "ONE", [.cacheControl: "max-age=10", .lastModified: Self.modified])
                }
                if request.headers[.ifNoneMatch] == "\"v2\"" { return reply(.notModified, "", [.eTag: "\"v2\""]) }
                return reply(.ok, "TWO", [.cacheControl: "max-age=10", .eTag: "\"v2\""])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            #expect(String(decoding: try await fixture.get(server, "/doc").value, as: UTF8.self) == "ONE")
            fixture.clock.advance(by: 20)
            origin.version.withLock { $0 = 2 }
            // A client that holds version 2 asks with its tag; the cache's own validation is of version 1.
            let answer = try await fixture.get(server, "/doc", [.ifNoneMatch: "\"v2\""])
            #expect(answer.status == 200 && String(decoding: answer.value, as: UTF8.self) == "TWO", "version 1 was freshened by v2's 304")
            #expect(origin.requests.withLock { $0.last?[.ifModifiedSince] } == Self.modified)
            #expect(String(decoding: try await fixture.get(server, "/doc").value, as: UTF8.self) == "TWO")
        }
    }

    @Test(arguments: ["\"v2\"", "W/\"v2\""])
    func aNotModifiedNamingAnotherRepresentationUpdatesNothing(_ theirs: String) async throws {
        let origin = Origin()
        try await withTestServer({ router in
            router.get("doc") { request, _ in
                origin.requests.withLock { $0.append(request.headers) }
                guard origin.version.withLock({ $0 }) == 2 else {
                    return reply(.ok, "ONE", [.cacheControl: "max-age=10", .eTag: "\"v1\""])
                }
                // A server that answers any condition with a 304 of its current version's tag.
                if request.headers[.ifNoneMatch] != nil { return reply(.notModified, "", [.eTag: theirs]) }
                return reply(.ok, "TWO", [.cacheControl: "max-age=10", .eTag: theirs])
            }
        }) { server in
            let fixture = try ClientFixture(baseURL: server.baseURL)
            _ = try await fixture.get(server, "/doc")
            fixture.clock.advance(by: 20)
            origin.version.withLock { $0 = 2 }
            let answer = try await fixture.get(server, "/doc")
            #expect(String(decoding: answer.value, as: UTF8.self) == "TWO", "version 1 was freshened by a 304 tagged \(theirs)")
            #expect(origin.requests.withLock { $0.count } == 3, "asked again, unconditionally")
        }
    }

    @Test func aNotModifiedWithTheStoredValidatorOrNoneUpdatesIt() async throws {
        for tag in ["\"v1\"", nil] {
            try await withTestServer({ router in
                router.get("doc") { request, _ in
                    guard request.headers[.ifNoneMatch] == "\"v1\"" else {
                        return reply(.ok, "ONE", [.cacheControl: "max-age=10", .eTag: "\"v1\""])
                    }
                    return reply(.notModified, "", tag.map { [.eTag: $0, .cacheControl: "max-age=10"] } ?? [.cacheControl: "max-age=10"])
                }
            }) { server in
                let fixture = try ClientFixture(baseURL: server.baseURL)
                _ = try await fixture.get(server, "/doc")
                fixture.clock.advance(by: 20)
                let answer = try await fixture.get(server, "/doc")
                #expect(answer.source == .revalidated && String(decoding: answer.value, as: UTF8.self) == "ONE")
            }
        }
    }
}
