import Foundation

/// Writes one JSON object member by member, straight into bytes: for a hot path that writes thousands of
/// records (a sync's rows), where building a ``JSONValue`` or going through `JSONEncoder` first costs more
/// than the writing. Strings are escaped as ``JSONValue/serialized()`` escapes them.
///
/// ```swift
/// var writer = JSONObjectWriter()
/// writer.write("id", "c1")
/// writer.write("phones", ["+1 555 0100"])
/// let body = writer.finished()          // {"id":"c1","phones":["+1 555 0100"]}
/// ```
public struct JSONObjectWriter: Sendable {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    /// An empty object.
    public init() {
        bytes.reserveCapacity(256)
    }

    /// Adds the member `key` with a string value.
    public mutating func write(_ key: String, _ value: String) {
        member(key)
        JSONWriter.write(value, into: &bytes)
    }

    /// Adds the member `key` with an array of strings.
    public mutating func write(_ key: String, _ values: [String]) {
        member(key)
        bytes.append(UInt8(ascii: "["))
        for (offset, value) in values.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.write(value, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object's bytes, closed.
    public func finished() -> Data {
        var bytes = bytes
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    private mutating func member(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        JSONWriter.write(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }
}
