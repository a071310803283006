@testable import APICore
import Foundation
import Testing

@Suite struct JSONParserTests {
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

    @Test func serializingRoundTrips() throws {
        let value: JSONValue = ["s": "quote \" backslash \\ newline \n tab \t bell \u{7}", "n": [1, 2.5, -3, nil, true],
                                "o": ["deep": ["x": "é😀"]]]
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: value.serialized()) == value)
    }
}
