import APICore
import APICoreREST
import Foundation

// A catalog page read by hand. The first screen decodes a page of 50 funnels at every launch, and `JSONDecoder`
// took a third of that launch: the network's and the cache's bodies are read straight from their bytes
// (`CatalogPage+Reading.swift`), the first screen's snapshot from its parsed value (`init(json:)`). Each reader
// takes a page only when it reads exactly as `Decodable` would. Otherwise (a member of another type, a number with
// a fraction, a key twice) `DataEnvelope.decode` decides, so every reader reads every body alike
// (`CatalogPageJSONTests`).
extension CatalogPage {
    /// The page in a success envelope (`{"success": true, "data": {…}}`), as `DataEnvelope.decode` reads it.
    /// - Throws: `APIError.decoding` naming the coding path, as `DataEnvelope.decode` throws it.
    @Sendable static func decodeEnvelope(_ body: Data) throws(APIError) -> CatalogPage {
        if let page = try? JSONReader.read(body, readEnvelope) { return page }
        return try DataEnvelope.decode(body)
    }

    /// The page when the envelope holds a `success` flag and a page that reads whole.
    static func envelope(_ value: JSONValue) -> CatalogPage? {
        guard case .object(let envelope) = value, case .bool? = envelope["success"], let data = envelope["data"] else { return nil }
        return CatalogPage(json: data)
    }

    /// A page read by hand from `json`, as `Decodable` would read it: `pillars` required, `uncategorized_funnels` and
    /// `pagination` absent or `null` when there are none. `nil` for anything `Decodable` might read otherwise (a
    /// member of another type, a number with a fraction), which the caller leaves to `JSONDecoder`; a value parsed
    /// with `refusingDuplicateKeys` reads exactly as `JSONDecoder` reads its bytes.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, case .array(let pillars)? = object["pillars"],
            let groups = JSONRead.all(pillars, PillarWithFunnels.init(json:)),
            let uncategorized = JSONRead.optional(
                object["uncategorized_funnels"],
                { value in
                    value.arrayValue.flatMap { JSONRead.all($0, CatalogFunnel.init(json:)) }
                }),
            let pagination = JSONRead.optional(object["pagination"], CatalogPagination.init(json:))
        else { return nil }
        self.init(pillars: groups, uncategorizedFunnels: uncategorized ?? [], pagination: pagination)
    }
}

extension PillarWithFunnels {
    /// A pillar and its funnels, both required.
    init?(json: JSONValue) {
        guard case .object(let object) = json, let pillar = object["pillar"].flatMap(CatalogPillar.init(json:)),
            case .array(let funnels)? = object["funnels"], let read = JSONRead.all(funnels, CatalogFunnel.init(json:))
        else { return nil }
        self.init(pillar: pillar, funnels: read)
    }
}

extension CatalogPillar {
    /// A pillar: `id` and `title` required.
    init?(json: JSONValue) {
        guard case .object(let object) = json, case .string(let id)? = object["id"], case .string(let title)? = object["title"]
        else { return nil }
        self.init(id: id, title: title)
    }
}

extension CatalogFunnel {
    /// A funnel: `id`, `slug` and `title` required, every other member absent, `null` or of its type.
    init?(json: JSONValue) {
        guard case .object(let object) = json, case .string(let id)? = object["id"], case .string(let slug)? = object["slug"],
            case .string(let title)? = object["title"],
            let description = JSONRead.optional(object["description"], \.stringValue),
            let isActive = JSONRead.optional(object["isActive"], \.boolValue),
            let tier = JSONRead.optional(object["tier"], \.stringValue),
            let version = JSONRead.optional(object["version"], \.intValue),
            let updatedAt = JSONRead.optional(object["updatedAt"], \.stringValue)
        else { return nil }
        self.init(
            id: id, slug: slug, title: title, description: description, isActive: isActive, tier: tier, version: version,
            updatedAt: updatedAt)
    }
}

extension CatalogPagination {
    /// Pagination: `limit` and `hasMore` required, `nextCursor` absent or `null` on the last page.
    init?(json: JSONValue) {
        guard case .object(let object) = json, case .int(let limit)? = object["limit"], case .bool(let hasMore)? = object["hasMore"],
            let cursor = JSONRead.optional(object["nextCursor"], \.stringValue)
        else { return nil }
        self.init(limit: limit, hasMore: hasMore, nextCursor: cursor)
    }
}
