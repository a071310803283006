import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreREST

/// Response headers from a hostile or broken server never trap: each one below crashed any GET
/// through `RESTClient` (and so `mib proxy`) before the parsers bounded their numbers.
@Suite(.timeLimit(.minutes(10))) struct HostileHeaderTests {
    static let body = Data(#"{"id":1,"name":"one"}"#.utf8)

    /// The fuzzers' findings: one header (with what it needs beside it) on a 200 to a GET.
    static let crashers: [(name: String, fields: [(String, String)])] = [
        ("huge Date year", [("Date", "Sun, 06 Nov 999999999999999 08:49:37 GMT"), ("Expires", "Sun, 06 Nov 2094 08:49:37 GMT")]),
        ("negative Expires hour", [("Expires", "Sun, 06 Nov 1994 -9223372036854775808:00:00 GMT")]),
        ("Int.max Last-Modified year", [("Last-Modified", "Sun, 06 Nov 9223372036854775807 08:49:37 GMT")]),
        ("Int.min asctime year", [("Expires", "Sun Jan  6 08:49:37 -9223372036854775808")]),
        ("Age 1e300", [("Age", "1e300"), ("Cache-Control", "max-age=60")]),
        ("Age 9.3e18", [("Age", "9.3e18"), ("Cache-Control", "max-age=60")]),
        ("Age inf", [("Age", "inf"), ("Cache-Control", "max-age=60")]),
        ("Age past Int", [("Age", "99999999999999999999999"), ("Cache-Control", "max-age=60")]),
        ("max-age past Int", [("Cache-Control", "max-age=99999999999999999999999")]),
    ]

    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields: HTTPFields = [.eTag: "\"v1\""]
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    @Test(arguments: crashers.indices) func aHostileHeaderIsSurvivedThroughEveryPath(_ index: Int) async throws {
        let transport = RecordingTransport()
        transport.stub(.get, "/item", status: 200, headerFields: Self.fields(Self.crashers[index].fields), body: Self.body)
        let fixture = try ClientFixture(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
        // First from the network, then (fresh or not) through the cache's paths: a hit, a
        // revalidation, the proxy's forward, and the stale-while-revalidate stream.
        for _ in 0..<2 {
            let response = try await fixture.client.send(.item("/item"))
            #expect(response.value == Item(id: 1, name: "one"), "\(Self.crashers[index].name)")
        }
        let forwarded = try await fixture.client.forward(method: .get, url: "http://127.0.0.1:1/item", headerFields: [:], body: nil)
        #expect(forwarded.status == 200)
        fixture.clock.advance(by: 1_000_000_000)
        var updates = 0
        for try await update in fixture.client.updates(for: .item("/item")) {
            #expect(update.value.id == 1)
            updates += 1
        }
        #expect(updates >= 1)
    }

    @Test func anAgeThatIsNotDeltaSecondsIsIgnored() async throws {
        for age in ["1e300", "9.3e18", "inf", "7200.0", "-1", "+5", ""] {
            let transport = RecordingTransport()
            transport.stub(
                .get, "/item", status: 200,
                headerFields: Self.fields([("Age", age), ("Cache-Control", "max-age=60")]), body: Self.body)
            let fixture = try ClientFixture(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
            _ = try await fixture.client.send(.item("/item"))
            fixture.clock.advance(by: 10)
            let hit = try await fixture.client.send(.item("/item"))
            #expect(hit.source == .cache, "Age: \(age)")
            #expect(hit.headerFields[.age] == "10", "Age: \(age)")
            #expect(transport.requests.count == 1, "Age: \(age)")
        }
    }

    @Test func aListOrAnOverflowingAgeUsesItsFirstValueOrTwoToThe31() {
        func age(_ value: String) -> Int? {
            StoredResponse(
                status: 200, headerFields: [.age: value], body: Data(), requestTime: Date(),
                responseTime: Date(), requestFields: [:], secret: InstallSecret()
            ).ageFieldValue
        }
        #expect(age("7200, 0") == 7200)
        #expect(age(" 30 ") == 30)
        #expect(age("99999999999999999999999") == 2_147_483_648)
        #expect(age("7200.0") == nil)
        let old = StoredResponse(
            status: 200, headerFields: [.age: "99999999999999999999999"], body: Data(),
            requestTime: Date(), responseTime: Date(), requestFields: [:], secret: InstallSecret())
        #expect(old.fieldsServed(at: Date().addingTimeInterval(1e300))[.age] == "2147483648")
    }

    @Test func maxAgeIsDeltaSeconds() {
        func maxAge(_ value: String) -> Int? { CacheControl([.cacheControl: value]).maxAge }
        #expect(maxAge("max-age=60") == 60)
        #expect(maxAge("max-age=\"60\"") == 60)
        #expect(maxAge("max-age=99999999999999999999999") == 2_147_483_648)
        // Malformed: stale at once (RFC 9111 §4.2.1).
        #expect(maxAge("max-age=-1") == 0)
        #expect(maxAge("max-age=1e3") == 0)
        #expect(maxAge("max-age=60.5") == 0)
    }
}

/// HTTP dates by the grammar of RFC 9110 §5.6.7.
@Suite(.timeLimit(.minutes(10))) struct HTTPDateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777.0),
        ("Sun Nov  6 08:49:37 1994", 784_111_777.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799.0),
        ("  Sun, 06 Nov 1994 08:49:37 GMT\t", 784_111_777.0),
        ("Tue, 29 Feb 2028 12:00:00 GMT", 1_835_438_400.0),
        // Names in any case, as most caches read them.
        ("Sun, 06 nov 1994 08:49:37 GMT", 784_111_777.0),
        ("sUN, 06 NOV 1994 08:49:37 gmt", 784_111_777.0),
        ("sunday, 06-nov-94 08:49:37 gMT", 784_111_777.0),
    ]) func validFormsParse(_ text: String, _ seconds: Double) {
        #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "Sun 06 Nov 1994 08:49:37 GMT",  // missing comma
        "Sun,  06 Nov 1994 08:49:37 GMT",  // doubled space
        "Sun, 06 Nov 1994  08:49:37 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT",  // one-digit hour
        "Sun, 6 Nov 1994 08:49:37 GMT",  // one-digit day
        "Sunday, 18-Aug-2050 08:49:37 GMT",  // four-digit year in the RFC 850 form
        "Sun, 18-Aug-2050 08:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT",  // two-digit year in IMF-fixdate
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",  // November has 30 days
        "Mon, 29 Feb 2100 08:49:37 GMT",  // not a leap year
        "Sun Nov 6 08:49:37 1994",  // asctime needs two places for the day
        "Sun Nov  6 08:49:37 1994 GMT",
        "Sun, 06 Nov 999999999999999 08:49:37 GMT",
        "Sun, 06 Nov 1994 -9223372036854775808:00:00 GMT",
        "Sun Jan  6 08:49:37 -9223372036854775808",
        "0", "", "-1",
    ]) func invalidFormsAreNil(_ text: String) {
        #expect(HTTPDate.parse(text) == nil, "\(text)")
    }
}
