import CacheKit
import Foundation
import HTTPTypes
import Testing

@testable import APICore
@testable import APICoreREST

/// A stored response's head, read by hand from the strict parser, reads as `JSONDecoder` reads it: what the
/// cache wrote is taken whole, and any other head is left to `JSONDecoder`, which decides.
@Suite(.timeLimit(.minutes(10))) struct StoredResponseEncodingTests {
    /// A response with fields, a `Vary`, and another variant, written as the disk store keeps it.
    static func written() throws -> Data {
        var variant = StoredResponse(
            status: 200, headerFields: [.contentType: "text/plain", .vary: "Accept-Language"], body: Data("bonjour".utf8),
            requestTime: Date(timeIntervalSince1970: 1_764_331_200), responseTime: Date(timeIntervalSince1970: 1_764_331_200.25),
            requestFields: [HTTPField.Name("Accept-Language")!: "fr"], secret: InstallSecret())
        variant.vary = ["accept-language": "fr"]
        var response = StoredResponse(
            status: 203, headerFields: [.contentType: "text/plain", .eTag: "\"v1\"", .vary: "Accept-Language"],
            body: Data("hello".utf8), requestTime: Date(timeIntervalSince1970: 1_764_331_234.5),
            responseTime: Date(timeIntervalSince1970: 1_764_331_235), requestFields: [HTTPField.Name("Accept-Language")!: "en"],
            secret: InstallSecret())
        response.vary = ["accept-language": "en"]
        response.otherVariants = [variant]
        return try response.encoded()
    }

    /// The head's bytes in what ``written()`` wrote.
    static func head(of encoded: Data) -> Data {
        let length = encoded.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        return encoded.dropFirst(4).prefix(length)
    }

    @Test func whatTheCacheWroteIsReadByHandWholeAndBack() throws {
        let encoded = try Self.written()
        let value = try JSONValue.parse(Self.head(of: encoded))
        let head = try #require(StoredResponse.Head(json: value), "the hand reader left the cache's own head to JSONDecoder")
        #expect(head == (try JSONDecoder().decode(StoredResponse.Head.self, from: Self.head(of: encoded))))
        let read = try #require(StoredResponse(encoded: encoded))
        #expect(read.status == 203 && read.body == Data("hello".utf8) && read.headerFields[.eTag] == "\"v1\"")
        #expect(read.requestTime.timeIntervalSince1970 == 1_764_331_234.5 && read.vary == ["accept-language": "en"])
        #expect(read.otherVariants.map(\.body) == [Data("bonjour".utf8)] && read.otherVariants.first?.vary == ["accept-language": "fr"])
    }

    @Test(arguments: [
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2.5}"#,
        #"{"status": 200, "fields": [["a", "b"]], "requestTime": 1e3, "responseTime": 2, "vary": null, "variants": null}"#,
        #"{"status": 200.0, "fields": [], "requestTime": 1, "responseTime": 2}"#,
        #"{"status": "200", "fields": [], "requestTime": 1, "responseTime": 2}"#,
        #"{"status": 200, "fields": [["a", 1]], "requestTime": 1, "responseTime": 2}"#,
        #"{"status": 200, "fields": [null], "requestTime": 1, "responseTime": 2}"#,
        #"{"status": 200, "fields": [], "requestTime": "1", "responseTime": 2}"#,
        #"{"status": 200, "fields": [], "requestTime": 1}"#,
        #"{"status": 200, "fields": [], "requestTime": 1e-400, "responseTime": 2}"#,
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2, "vary": {"a": 1}}"#,
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2, "vary": []}"#,
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2, "variants": ["not base64!"]}"#,
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2, "variants": ["aGk="]}"#,
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2, "variants": [7]}"#,
        #"{"status": 200, "status": 404, "fields": [], "requestTime": 1, "responseTime": 2}"#,
        #"{"status": 200, "fields": [], "requestTime": 1, "responseTime": 2"#,
        "[]",
    ]) func everyHeadReadsAsJSONDecoderReadsIt(_ head: String) {
        #expect(StoredResponse.Head.read(Data(head.utf8)) == (try? JSONDecoder().decode(StoredResponse.Head.self, from: Data(head.utf8))))
    }
}
