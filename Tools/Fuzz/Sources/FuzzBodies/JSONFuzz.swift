import APICore
import Foundation

/// The JSON parser against its own writer and against `JSONSerialization`.
public enum JSONFuzz {
    /// One input: whatever the parser accepts must serialize and parse back to the same value, and
    /// `JSONSerialization` must accept it too (the parser is the stricter of the two).
    /// - Throws: ``FuzzViolation`` when a property breaks.
    public static func run(_ data: Data) throws {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            guard error.offset >= 0, error.offset <= data.count else {
                throw FuzzViolation("error offset \(error.offset) outside \(data.count) bytes")
            }
            return
        }
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
}
