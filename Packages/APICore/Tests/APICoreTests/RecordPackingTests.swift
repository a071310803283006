import Foundation
import Testing

@testable import APICore
@testable import APICoreGraphQL

@Suite(.timeLimit(.minutes(10))) struct RecordPackingTests {
    static let date = Date(timeIntervalSince1970: 1_800_000_000.25)

    static let fields: [String: RecordValue] = [
        "int": .value(.int(Int.min)), "max": .value(.int(Int.max)), "zero": .value(0), "one": .value(1),
        "bool": .value(true), "double": .value(-2.5), "null": .value(nil), "text": .value("é😀 \"quoted\""),
        "json": .value(["a": [1, "b", nil], "c": ["d": false]]), "ref": .reference("Account:1"),
        "list": .list([.reference("A:1"), .list([.value(0), .reference("B:2")]), .value(nil)]), "": .value(""),
    ]

    @Test func everyKindOfValueRoundTripsWithItsWriteTime() throws {
        let record = NormalizedRecord(fields: Self.fields, writtenAt: Self.fields.mapValues { _ in Self.date }, accountId: "7")
        #expect(record.fields == Self.fields)
        #expect(record.writtenAt["list"] == Self.date)
        #expect(record.entry("one")?.value == .value(.int(1)))
        #expect(record.entry("missing") == nil)
        let reread = try RecordCoding.decode(RecordCoding.encode(record))
        #expect(reread == record && reread.accountId == "7")
    }

    @Test func mergeReportsOnlyChangedFieldsAndKeepsTheRest() {
        var record = NormalizedRecord(fields: ["a": .value(1), "b": .value(2)], writtenAt: ["a": Self.date, "b": Self.date])
        let later = Self.date.addingTimeInterval(60)
        let changed = record.merge(NormalizedRecord(fields: ["b": .value(2), "c": .value(3)], writtenAt: ["b": later, "c": later]))
        #expect(changed == ["c"])
        #expect(record.fields == ["a": .value(1), "b": .value(2), "c": .value(3)])
        #expect(record.writtenAt == ["a": Self.date, "b": later, "c": later])
        #expect(record.remove("a") && !record.remove("a"))
        #expect(record.keys == ["b", "c"])
        record.accountId = "9"
        #expect(record.accountId == "9" && record.writtenAt == ["b": later, "c": later])
    }

    @Test func aRefetchOfTheSameFieldsReportsChangedValuesTakesTheNewTimesAndKeepsTheAccount() {
        let later = Self.date.addingTimeInterval(60)
        var record = NormalizedRecord(
            fields: ["a": .value(1), "b": .value("x")], writtenAt: ["a": Self.date, "b": Self.date], accountId: "7")
        // The same fields, one value changed, no account named: the stored account stays.
        let changed = record.merge(NormalizedRecord(fields: ["a": .value(1), "b": .value("y")], writtenAt: ["a": later, "b": later]))
        #expect(changed == ["b"])
        #expect(record.fields == ["a": .value(1), "b": .value("y")])
        #expect(record.writtenAt == ["a": later, "b": later])
        #expect(record.accountId == "7")
        // The same fields and values under another account: nothing changed but the account and the times.
        let evenLater = later.addingTimeInterval(60)
        #expect(
            record.merge(
                NormalizedRecord(fields: ["a": .value(1), "b": .value("y")], writtenAt: ["a": evenLater, "b": evenLater], accountId: "8"))
                == [])
        #expect(record.accountId == "8" && record.writtenAt == ["a": evenLater, "b": evenLater])
    }

    @Test func truncatedOrForeignBytesAreRejected() {
        let record = NormalizedRecord(fields: Self.fields, writtenAt: [:])
        for length in [1, 5, 17, record.bytes.count - 1] {
            #expect(throws: RecordPackingError.self) {
                try NormalizedRecord(packed: Array(record.bytes.prefix(length)))
            }
        }
        #expect(throws: (any Error).self) { try RecordCoding.decode(Data("{\"f\":{}}".utf8)) }
        #expect(throws: (any Error).self) { try RecordCoding.decode(Data([2, 0, 1])) }
    }
}
