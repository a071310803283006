import Foundation
import Testing

@testable import APICore

/// `JSONReader` is as strict as `JSONValue.parse`: a body one refuses, the other refuses, and what it reads is what
/// the parsed value holds.
@Suite(.timeLimit(.minutes(5))) struct JSONReaderTests {
    /// Reads any body whole, through the reader's containers and values, into the value `JSONValue.parse` makes.
    static func value(_ reader: inout JSONReader) throws(JSONParseError) -> JSONValue {
        if try reader.readsNull() { return .null }
        if let bool = try? reader.bool() { return .bool(bool) }
        if let string = try? reader.string() { return .string(string) }
        if let int = try? reader.int() { return .int(int) }
        if (try? reader.beginArray()) != nil {
            var array: [JSONValue] = []
            while try reader.nextElement() { array.append(try value(&reader)) }
            return .array(array)
        }
        try reader.beginObject()
        var object: [String: JSONValue] = [:]
        while let key = try reader.nextKey() { object[key] = try value(&reader) }
        return .object(object)
    }

    @Test(arguments: [
        #"{"a": [1, -2, {"b": null, "c": [true, false, []]}], "d": "\u00e9\n", "e": {}}"#,
        "\u{FEFF}[1]", "  [ ]  ", #""x""#, "0", "-0",
        // Malformed: each must be refused.
        "", "[", "]", "[1,]", "[,1]", "[1 2]", "[1 22]", #"{"a": 1 x"b": 2}"#, #"{"a" 1}"#, #"{"a": 1,}"#, #"{,"a": 1}"#,
        #"{"a": 1 "b": 2}"#, "{1: 2}",
        "01", "1.", "[1] x", "[1][2]", #""\u00""#, "tru", "nul", #"{"a": [}"#, "\"\u{01}\"",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ]) func theReaderRefusesWhatTheParserRefusesAndReadsTheRest(_ body: String) {
        let data = Data(body.utf8)
        let parsed = try? JSONValue.parse(data)
        let read = try? JSONReader.read(data, Self.value)
        // Fractions are not the reader's (its `int()` refuses them); none of these bodies has one.
        #expect(read == parsed, "\(body.prefix(60))")
    }

    @Test func aMemberTakenTwiceIsRefusedAndARequiredOneMissingToo() throws {
        var members = JSONReader.Members()
        try members.take(3)
        #expect(throws: JSONParseError.self) { try members.take(3) }
        #expect(members.has(3) && !members.has(0))
        #expect(throws: JSONParseError.self) { try members.require(0) }
        // A value of another type than asked for is refused, and nothing after it is read as if it were.
        #expect(throws: JSONParseError.self) {
            try JSONReader.read(Data(#"{"a": "1"}"#.utf8)) { reader throws(JSONParseError) in
                try reader.beginObject()
                _ = try reader.nextKey()
                return try reader.int()
            }
        }
        #expect(throws: JSONParseError.self) { try JSONReader.read(Data("2.0".utf8)) { reader throws(JSONParseError) in try reader.int() } }
    }
}
