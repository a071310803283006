import APICore
import Foundation

/// The JSON parser against its own writer and against `JSONSerialization`, and the reader of bytes (`JSONReader`)
/// against the parser.
public enum JSONFuzz {
    /// One input: whatever the parser accepts must serialize and parse back to the same value, and
    /// `JSONSerialization` must accept it too (the parser is the stricter of the two); the reader walking every
    /// container accepts exactly what the parser accepts.
    /// - Throws: ``FuzzViolation`` when a property breaks.
    public static func run(_ data: Data) throws {
        let read = (try? JSONReader.read(data, walk)) != nil
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            guard error.offset >= 0, error.offset <= data.count else {
                throw FuzzViolation("error offset \(error.offset) outside \(data.count) bytes")
            }
            guard !read else { throw FuzzViolation("the reader accepted what the parser refuses: \(error)") }
            return
        }
        guard read else { throw FuzzViolation("the reader refused what the parser accepts") }
        let again: JSONValue
        do {
            again = try JSONValue.parse(value.serialized())
        } catch {
            throw FuzzViolation("the serialized form of an accepted value does not parse: \(error)")
        }
        guard again == value else { throw FuzzViolation("round trip changed the value: \(value) → \(again)") }
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            throw FuzzViolation("accepted what JSONSerialization refuses")
        }
    }

    /// Reads one value whole through the reader's containers; a scalar is skipped.
    static func walk(_ reader: inout JSONReader) throws(JSONParseError) {
        if try reader.readsNull() { return }
        if (try? reader.beginArray()) != nil {
            while try reader.nextElement() { try walk(&reader) }
        } else if (try? reader.beginObject()) != nil {
            while try reader.nextKey() != nil { try walk(&reader) }
        } else {
            try reader.skipValue()
        }
    }
}
