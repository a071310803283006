import APICore
import Foundation
import HTTPTypes

// How a stored response is written to the disk store and read back.
extension StoredResponse {
    struct Head: Codable, Equatable {
        var status: Int
        var fields: [[String]]
        var requestTime: Double
        var responseTime: Double
        var vary: [String: String]?
        /// The other variants, each encoded as this entry is (without variants of their own).
        var variants: [Data]?
    }

    /// A length-prefixed JSON head followed by the raw body; `Set-Cookie` is left out (no file holds a cookie).
    func encoded() throws -> Data {
        let head = Head(
            status: status, fields: headerFields.filter { $0.name != .setCookie }.map { [$0.name.rawName, $0.value] },
            requestTime: requestTime.timeIntervalSince1970, responseTime: responseTime.timeIntervalSince1970,
            vary: vary, variants: otherVariants.isEmpty ? nil : try otherVariants.map { try $0.encoded() })
        let headData = try JSONEncoder().encode(head)
        var data = Data()
        var length = UInt32(headData.count).bigEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(headData)
        data.append(body)
        return data
    }

    /// Decodes what ``encoded()`` wrote, or `nil` for anything else.
    init?(encoded data: Data) {
        guard data.count >= 4 else { return nil }
        let length = data.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let start = data.startIndex + 4
        guard data.count >= 4 + length, let head = Head.read(data[start..<start + length]) else { return nil }
        var fields = HTTPFields()
        for pair in head.fields {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        status = head.status
        headerFields = fields
        body = Data(data[(start + length)...])
        requestTime = Date(timeIntervalSince1970: head.requestTime)
        responseTime = Date(timeIntervalSince1970: head.responseTime)
        vary = head.vary
        otherVariants = (head.variants ?? []).compactMap { StoredResponse(encoded: $0) }
    }
}

extension StoredResponse.Head {
    /// The head in `bytes`, read by hand from the strict parser's value: a hit from the disk reads one, and
    /// `JSONDecoder` took most of that hit's time. A head the hand reader does not take whole goes to `JSONDecoder`,
    /// which decides, so both read every head alike (`StoredResponseEncodingTests`).
    static func read(_ bytes: Data) -> Self? {
        if let value = try? JSONValue.parse(bytes, refusingDuplicateKeys: true), let head = Self(json: value) { return head }
        return try? JSONDecoder().decode(Self.self, from: bytes)
    }

    /// The head when every member is of its type (`vary` and `variants` absent or `null` when there are none).
    init?(json: JSONValue) {
        guard case .object(let object) = json, case .int(let status)? = object["status"],
            case .array(let rows)? = object["fields"],
            let fields = JSONRead.all(rows, { $0.arrayValue.flatMap { JSONRead.all($0, \.stringValue) } }),
            let requestTime = object["requestTime"].flatMap(Self.double),
            let responseTime = object["responseTime"].flatMap(Self.double),
            let vary = JSONRead.optional(object["vary"], Self.strings(byName:)),
            let variants = JSONRead.optional(
                object["variants"],
                { value in
                    value.arrayValue.flatMap { JSONRead.all($0, { $0.stringValue.flatMap { Data(base64Encoded: $0) } }) }
                })
        else { return nil }
        self.init(
            status: status, fields: fields, requestTime: requestTime, responseTime: responseTime, vary: vary, variants: variants)
    }

    /// A number as `Double` decodes it: an integer or not.
    private static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }

    /// An object whose members are all strings.
    private static func strings(byName value: JSONValue) -> [String: String]? {
        guard case .object(let members) = value else { return nil }
        let strings = members.compactMapValues(\.stringValue)
        return strings.count == members.count ? strings : nil
    }
}
