import Foundation
import HTTPTypes

// How a stored response is written to the disk store and read back.
extension StoredResponse {
    private struct Head: Codable {
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
        guard data.count >= 4 + length,
            let head = try? JSONDecoder().decode(Head.self, from: data[start..<start + length])
        else { return nil }
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
