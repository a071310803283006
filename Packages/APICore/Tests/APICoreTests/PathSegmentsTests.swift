import APICore
import Foundation
import Testing

/// A value put in a path stays one segment (security review two, finding 10).
@Suite(.timeLimit(.minutes(10))) struct PathSegmentsTests {
    @Test func anIdThatLooksLikeARouteStaysOneSegment() throws {
        #expect(PathSegments.path("contacts", "c1") == "/contacts/c1")
        #expect(PathSegments.path("contacts", "a/b?c#d", "enrichment") == "/contacts/a%2Fb%3Fc%23d/enrichment")
        #expect(PathSegments.path("contacts", "..") == "/contacts/%2E%2E")
        #expect(PathSegments.path("contacts", "%2F") == "/contacts/%252F")
        #expect(PathSegments.path("contacts", "a\r\nX: 1") == "/contacts/a%0D%0AX%3A%201")
        // Whatever the id, the URL has exactly the route's segments, and the id reads back as given.
        for id in ["../admin/faults", "a/b", "?x=1", "#frag", "..", ".", "e\u{301}", "50%"] {
            let url = try #require(URL(string: "https://api.example.com" + PathSegments.path("contacts", id, "enrichment")))
            let segments = url.absoluteString.dropFirst("https://api.example.com/".count).split(
                separator: "/", omittingEmptySubsequences: false)
            #expect(segments.count == 3, "\(id): \(url.absoluteString)")
            #expect(url.query == nil && url.fragment == nil, "\(id)")
            #expect(segments[1].removingPercentEncoding == id, "\(id)")
        }
    }
}
