import Foundation
import Testing

@testable import APICore

@Suite(.timeLimit(.minutes(10))) struct JSONParserTests {
    @Test func parsesEveryKindOfValueAndKeepsIntegersApartFromBooleans() throws {
        let text = #"{"a": [0, 1, true, false, null, -2.5e3, 9223372036854775807, 1e400], "b": {"c": "x\"\\\/\n\u00e9\ud83d\ude00"}}"#
        // 1e400 is not a finite number.
        #expect(throws: JSONParseError(reason: "invalid number '1e400'", offset: 61)) { try JSONValue.parse(Data(text.utf8)) }
        let valid = try JSONValue.parse(Data(text.replacingOccurrences(of: ", 1e400", with: "").utf8))
        #expect(valid["a"] == [0, 1, true, false, nil, -2_500.0, .int(Int.max)])
        #expect(valid["b"]?["c"] == "x\"\\/\né😀")
    }

    @Test(arguments: [
        (#"{"a": }"#, 6), (#"{"a" 1}"#, 5), ("[1, 2", 5), (#""abc"#, 4), ("tru", 0), ("{} x", 3), ("", 0), (#""\ud83d""#, 7),
    ]) func malformedInputIsATypedErrorWithItsOffset(_ text: String, _ offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(text.utf8)) }
        do {
            _ = try JSONValue.parse(Data(text.utf8))
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test func refusesNestingDeeperThan512() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONValue.parse(Data(fine.utf8)) }
    }

    /// The same value is the same bytes in every process: an object's keys are written in order (an
    /// idempotency key derived from a body must survive a relaunch, where a dictionary's order changes).
    @Test func anObjectIsWrittenWithItsKeysInOrder() {
        let keys = ["kilo", "alpha", "hotel", "echo", "golf", "bravo", "delta", "charlie", "india", "juliet"]
        let value = JSONValue.object(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, JSONValue.int($0)) }))
        let written = String(decoding: value.serialized(), as: UTF8.self)
        let expected = "{" + keys.sorted().map { key in "\"\(key)\":\(keys.firstIndex(of: key) ?? -1)" }.joined(separator: ",") + "}"
        #expect(written == expected)
    }

    @Test func serializingRoundTrips() throws {
        let value: JSONValue = [
            "s": "quote \" backslash \\ newline \n tab \t bell \u{7}", "n": [1, 2.5, -3, nil, true],
            "o": ["deep": ["x": "é😀"]],
        ]
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: value.serialized()) == value)
    }
}

/// RFC 8259 strictly: what `JSONSerialization` refuses is refused too, with the byte offset.
@Suite(.timeLimit(.minutes(10))) struct StrictJSONTests {
    @Test(arguments: [
        ("05", 1), ("-008", 2), ("[01]", 2), ("2.", 2), ("0.", 2), ("-", 1), ("1e", 2), ("1e+", 3), ("1.e5", 2),
        ("-.5", 1), (".5", 0), ("+1", 0), ("[1,]", 3), (#"{"a":1,}"#, 7), ("01.5", 1), ("1e-400", 0), ("[-2e-324]", 1),
        ("0.0000000000000000000000000000000000000000000000000000000000000000000000001e-300", 0),
    ]) func malformedNumbersAreRefused(_ text: String, _ offset: Int) {
        do {
            let value = try JSONValue.parse(Data(text.utf8))
            Issue.record("\(text) parsed as \(value)")
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test(
        arguments: [
            ([0x22, 0xFF, 0x22], 1),  // a byte that is never UTF-8
            ([0x22, 0x61, 0xC3, 0x22], 2),  // a truncated two-byte sequence
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // an overlong '/'
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // a UTF-16 surrogate encoded in UTF-8
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
            ([0x22, 0x5C, 0x6E, 0xE2, 0x82, 0x22], 3),  // after an escape, on the slow path
        ] as [([UInt8], Int)]) func invalidUTF8InAStringIsRefused(_ bytes: [UInt8], _ offset: Int)
    {
        do {
            let value = try JSONValue.parse(Data(bytes))
            Issue.record("\(bytes) parsed as \(value)")
        } catch {
            #expect(error.offset == offset, "\(error)")
            #expect(error.reason == "invalid UTF-8 in a string")
        }
    }

    @Test func validNumbersAndUTF8StillParse() throws {
        #expect(
            try JSONValue.parse(Data("[0, -0, 0.5, -0.5e-3, 10, 1E2, 1e+2, 0e-400, 0.000e5, 5e-324]".utf8))
                == [0, 0, 0.5, -0.0005, 10, 100.0, 100.0, 0.0, 0.0, .double(5e-324)])
        #expect(try JSONValue.parse(Data(#"["é😀", "a\n€"]"#.utf8)) == ["é😀", "a\n€"])
    }

    /// A key twice keeps its last value, or is refused when the caller asks (a hand reader that must read as
    /// `JSONDecoder` does), at any depth, naming the key.
    @Test func aKeyTwiceKeepsTheLastOrIsRefusedOnRequest() throws {
        let body = Data(#"{"a": 1, "b": [{"c": 1, "c": 2}]}"#.utf8)
        #expect(try JSONValue.parse(body)["b"]?.arrayValue?.first?["c"] == 2)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(body, refusingDuplicateKeys: true) }
        #expect(error?.reason.contains("'c'") == true && error?.offset == 24)
        #expect(try JSONValue.parse(Data(#"{"a": {"c": 1}, "b": {"c": 2}}"#.utf8), refusingDuplicateKeys: true)["b"]?["c"] == 2)
    }

    @Test func aLeadingByteOrderMarkIsIgnoredAndNowhereElse() throws {
        #expect(try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) == [1])
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(Array(" ".utf8) + [0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data([0xEF, 0xBB, 0xBF])) }
    }

    /// An object written member by member parses back to its members, escapes and empty arrays included.
    @Test func anObjectWrittenMemberByMemberParsesBack() throws {
        var writer = JSONObjectWriter()
        #expect(try JSONValue.parse(writer.finished()) == [:])
        writer.write("name", "Zoë \"Z\" \\ \n\t\u{1}🙂")
        writer.write("phones", ["+1 555", "\u{7F}"])
        writer.write("none", [])
        #expect(
            try JSONValue.parse(writer.finished())
                == ["name": "Zoë \"Z\" \\ \n\t\u{1}🙂", "phones": ["+1 555", "\u{7F}"], "none": []])
    }
}
