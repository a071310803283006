import APICore
import Foundation

/// A contact on the wire; a change feed's deleted entry has only its id and `deleted`.
///
/// A sync page is read by hand from the parsed JSON (`JSONValue`), not through `Decodable`: a full sync
/// reads ten thousand, and this takes a fraction of JSONDecoder's time. It reads as `Decodable` would: a
/// missing or `null` member is absent, and a record with a member of the wrong type is malformed.
struct ContactJSON: Sendable {
    var id: String
    var displayName: String?
    var phones: [String]?
    var emails: [String]?
    var photoPath: String?
    var circles: [String]?
    var profileClass: ProfileClass?
    var enrichmentBadges: [String]?
    var updatedAt: Date?
    var deleted: Bool?

    var contact: Contact {
        Contact(
            id: id, displayName: displayName ?? "", phones: phones ?? [], emails: emails ?? [], photoPath: photoPath,
            circles: circles ?? [],
            profileClass: profileClass ?? .person, enrichmentBadges: enrichmentBadges ?? [],
            updatedAt: updatedAt ?? Date(timeIntervalSince1970: 0))
    }

    /// The contact, when every member `Contact`'s `Decodable` form requires is here (a stored body; the
    /// wire's records may leave members out, and ``contact`` fills them in).
    var storedContact: Contact? {
        guard let displayName, let phones, let emails, let circles, let profileClass, let enrichmentBadges, let updatedAt else {
            return nil
        }
        return Contact(
            id: id, displayName: displayName, phones: phones, emails: emails, photoPath: photoPath, circles: circles,
            profileClass: profileClass, enrichmentBadges: enrichmentBadges, updatedAt: updatedAt)
    }

    /// A page's body (`{"data": [contact, …]}`): each element, or `nil` for one that is malformed (skipped and
    /// counted, never blocking the rest of the page).
    /// - Throws: `APIError.decoding` when the body is not JSON or has no `data` array.
    static func page(_ body: Data) throws(APIError) -> [ContactJSON?] {
        let items: [JSONValue?]
        if let value = try? JSONValue.parse(body, refusingDuplicateKeys: true) {
            guard let elements = value["data"]?.arrayValue else { throw .decoding(path: "data", reason: "expected an array of contacts") }
            items = elements
        } else {
            // What the strict parser refuses (a number beyond a Double's range, a key twice in one object) is read
            // by JSONDecoder record by record, a record it refuses skipped; a body that is not JSON fails whole.
            do {
                items = try JSONDecoder().decode(LenientPage.self, from: body).data.map(\.value)
            } catch {
                throw .decoding(path: "", reason: "\(error)")
            }
        }
        return items.map { item in item.flatMap { try? ContactJSON($0) } }
    }

    /// A page read by `JSONDecoder`, each element on its own.
    private struct LenientPage: Decodable {
        struct Element: Decodable {
            var value: JSONValue?
            init(from decoder: any Decoder) throws { value = try? JSONValue(from: decoder) }
        }
        var data: [Element]
    }

    /// A record that is malformed.
    struct Malformed: Error {}

    init(_ value: JSONValue) throws(Malformed) {
        guard case .object(let object) = value, case .string(let id)? = object["id"] else { throw Malformed() }
        self.id = id
        displayName = try Self.string(object["displayName"])
        phones = try Self.strings(object["phones"])
        emails = try Self.strings(object["emails"])
        photoPath = try Self.string(object["photoPath"])
        circles = try Self.strings(object["circles"])
        profileClass = try Self.string(object["profileClass"]).map(ProfileClass.init)
        enrichmentBadges = try Self.strings(object["enrichmentBadges"])
        updatedAt = try Self.string(object["updatedAt"]).map { text throws(Malformed) in
            guard let date = WireDate.parse(text) else { throw Malformed() }
            return date
        }
        switch object["deleted"] {
        case nil, .null?: deleted = nil
        case .bool(let flag)?: deleted = flag
        default: throw Malformed()
        }
    }

    private static func string(_ value: JSONValue?) throws(Malformed) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Malformed()
        }
    }

    private static func strings(_ value: JSONValue?) throws(Malformed) -> [String]? {
        switch value {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item throws(Malformed) in
                guard case .string(let text) = item else { throw Malformed() }
                return text
            }
        default: throw Malformed()
        }
    }
}
