/// Reading a ``JSONValue``'s members as `Decodable` reads them, for a reader written by hand (faster than
/// `JSONDecoder` on a body read at every launch or every disk hit): an optional member absent or `null` is `nil`,
/// and a member of another type refuses the whole value, which the reader then leaves to `JSONDecoder`.
///
/// ```swift
/// func tagged(_ json: JSONValue) -> (id: String, tier: String?, tags: [String]?)? {
///     guard case .object(let object) = json, case .string(let id)? = object["id"],
///         let tier = JSONRead.optional(object["tier"], \.stringValue),
///         let tags = JSONRead.optional(object["tags"], { $0.arrayValue.flatMap { JSONRead.all($0, \.stringValue) } })
///     else { return nil }
///     return (id, tier, tags)
/// }
/// ```
public enum JSONRead {
    /// `.some(nil)` for a member absent or `null`, `.some(value)` when `read` takes it, `nil` when it does not.
    public static func optional<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> T?? {
        guard let value, value != .null else { return .some(nil) }
        guard let read = read(value) else { return nil }
        return .some(read)
    }

    /// Every element read by `read`, or `nil` when one is not.
    public static func all<T>(_ values: [JSONValue], _ read: (JSONValue) -> T?) -> [T]? {
        var result: [T] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let element = read(value) else { return nil }
            result.append(element)
        }
        return result
    }
}
