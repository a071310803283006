import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The funnel catalog (REQ CAT): pages in a stable order with opaque cursors, `Cache-Control`,
/// `ETag` (`"<resource>:v<version>:<timestamp>"`) and `Last-Modified`, 304s for matching validators,
/// and the `INVALID_CURSOR` envelope. Admin routes change funnels so ETags and cursors can be
/// exercised.
struct CatalogRoutes: Sendable {
    let database: BackendDatabase

    static let catalogCacheControl = "public, max-age=300, must-revalidate"
    static let definitionCacheControl = "public, max-age=600, must-revalidate"
    static let tiers: Set<String> = ["free", "premium"]

    func register(on router: Router<BackendContext>) {
        router.get("api/funnels/catalog") { request, _ in try self.catalog(request) }
        router.get("api/funnels/catalog/:slug") { request, context in try self.detail(request, slug: context.parameters.get("slug") ?? "") }
        router.get("api/funnels/:slug/definition") { request, context in
            try self.definition(request, slug: context.parameters.get("slug") ?? "")
        }
        router.post("admin/funnels") { request, context in try await self.add(request, context) }
        router.patch("admin/funnels/:slug") { request, context in
            try await self.update(request, context, slug: context.parameters.get("slug") ?? "")
        }
        router.delete("admin/funnels/:slug") { _, context in
            let slug = context.parameters.get("slug") ?? ""
            return try database.delete(slug: slug) ? Response(status: .noContent) : Self.notFound(slug)
        }
    }

    // MARK: Catalog

    private func catalog(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        let limit: Int
        if let text = query["limit"].map(String.init) {
            guard let value = Int(text), (1...100).contains(value) else {
                return Envelope.failure(
                    .badRequest, code: "INVALID_LIMIT",
                    message: "limit must be a whole number from 1 to 100.", details: ["limit": text])
            }
            limit = value
        } else {
            limit = 50
        }
        let activeOnly: Bool
        switch query["active"].map(String.init) {
        case nil, "false": activeOnly = false
        case "true": activeOnly = true
        case let other?:
            return Envelope.failure(
                .badRequest, code: "INVALID_FILTER", message: "active must be true or false.",
                details: ["active": other])
        }
        let tier = query["tier"].map(String.init)
        if let tier, !Self.tiers.contains(tier) {
            return Envelope.failure(
                .badRequest, code: "INVALID_FILTER", message: "tier must be free or premium.",
                details: ["tier": tier])
        }
        var after: (title: String, slug: String)?
        if let cursor = query["cursor"].map(String.init), !cursor.isEmpty {
            guard let decoded = Cursor.decode(cursor), try database.contains(title: decoded.title, slug: decoded.slug) else {
                return Envelope.failure(
                    .badRequest, code: "INVALID_CURSOR",
                    message: "Pagination cursor is invalid or expired. Please restart from the first page.",
                    details: ["cursor": cursor])
            }
            after = (decoded.title, decoded.slug)
        }
        let revision = try database.revision()
        let validators = Validators(
            eTag: "\"funnels:v\(revision.version):\(ISO8601.string(revision.modifiedAt))\"",
            lastModified: revision.modifiedAt)
        if let notModified = validators.notModified(request, cacheControl: Self.catalogCacheControl) { return notModified }

        let (funnels, hasMore) = try database.page(after: after, limit: limit, activeOnly: activeOnly, tier: tier)
        let pillars = try database.pillars()
        var groups: [CatalogPage.Group] = []
        for pillar in pillars {
            let members = funnels.filter { $0.pillarId == pillar.id }
            if !members.isEmpty {
                groups.append(.init(pillar: .init(id: pillar.id, title: pillar.title), funnels: members.map(FunnelJSON.init)))
            }
        }
        let known = Set(pillars.map(\.id))
        let uncategorized = funnels.filter { $0.pillarId.map { !known.contains($0) } ?? true }.map(FunnelJSON.init)
        let next = hasMore ? funnels.last.map { Cursor.encode(title: $0.title, slug: $0.slug) } : nil
        let page = CatalogPage(
            pillars: groups, uncategorizedFunnels: uncategorized,
            pagination: .init(limit: limit, hasMore: hasMore, nextCursor: next))
        return try Envelope.success(page, fields: validators.fields(cacheControl: Self.catalogCacheControl))
    }

    private func detail(_ request: Request, slug: String) throws -> Response {
        guard let funnel = try database.funnel(slug: slug) else { return Self.notFound(slug) }
        let validators = Validators(
            eTag: "\"funnel:\(funnel.slug):v\(funnel.version):\(ISO8601.string(funnel.updatedAt))\"",
            lastModified: funnel.updatedAt)
        if let notModified = validators.notModified(request, cacheControl: Self.catalogCacheControl) { return notModified }
        return try Envelope.success(FunnelJSON(funnel), fields: validators.fields(cacheControl: Self.catalogCacheControl))
    }

    private func definition(_ request: Request, slug: String) throws -> Response {
        guard let funnel = try database.funnel(slug: slug) else { return Self.notFound(slug) }
        // REQ CAT-4: the definition carries Cache-Control and ETag, no Last-Modified.
        let validators = Validators(
            eTag: "\"definition:\(funnel.slug):v\(funnel.version):\(ISO8601.string(funnel.updatedAt))\"",
            lastModified: nil)
        if let notModified = validators.notModified(request, cacheControl: Self.definitionCacheControl) { return notModified }
        let steps = (1...5).map { DefinitionJSON.Step(id: "\(funnel.slug)-q\($0)", prompt: "Question \($0) of \(funnel.title)") }
        return try Envelope.success(
            DefinitionJSON(slug: funnel.slug, version: funnel.version, steps: steps),
            fields: validators.fields(cacheControl: Self.definitionCacheControl))
    }

    static func notFound(_ slug: String) -> Response {
        Envelope.failure(.notFound, code: "NOT_FOUND", message: "No funnel '\(slug)'.", details: ["slug": slug])
    }

    // MARK: Admin

    private struct NewFunnel: Decodable {
        var slug: String
        var title: String
        var pillarId: String?
        var isActive: Bool?
        var tier: String?
    }

    private struct FunnelChange: Decodable {
        var title: String?
        var isActive: Bool?
    }

    private func add(_ request: Request, _ context: BackendContext) async throws -> Response {
        let body = try await request.decode(as: NewFunnel.self, context: context)
        guard try database.funnel(slug: body.slug) == nil else {
            return Envelope.failure(.conflict, code: "SLUG_TAKEN", message: "A funnel '\(body.slug)' exists.", details: ["slug": body.slug])
        }
        // A pillar that does not exist is the client's mistake: a 400, never the database's constraint as a 500.
        if let pillar = body.pillarId, try !database.pillars().contains(where: { $0.id == pillar }) {
            return Envelope.failure(.badRequest, code: "UNKNOWN_PILLAR", message: "No pillar '\(pillar)'.", details: ["pillarId": pillar])
        }
        let tier = body.tier ?? "free"
        guard Self.tiers.contains(tier) else {
            return Envelope.failure(.badRequest, code: "INVALID_FILTER", message: "tier must be free or premium.", details: ["tier": tier])
        }
        let funnel = try database.add(
            slug: body.slug, title: body.title, pillarId: body.pillarId,
            isActive: body.isActive ?? true, tier: tier)
        return try Envelope.success(FunnelJSON(funnel), status: .created)
    }

    private func update(_ request: Request, _ context: BackendContext, slug: String) async throws -> Response {
        let body = try await request.decode(as: FunnelChange.self, context: context)
        guard let funnel = try database.update(slug: slug, title: body.title, isActive: body.isActive) else {
            return Self.notFound(slug)
        }
        return try Envelope.success(FunnelJSON(funnel))
    }
}

/// The catalog page's JSON.
struct CatalogPage: Encodable {
    struct PillarJSON: Encodable {
        var id: String
        var title: String
    }

    struct Group: Encodable {
        var pillar: PillarJSON
        var funnels: [FunnelJSON]
    }

    struct Pagination: Encodable {
        var limit: Int
        var hasMore: Bool
        var nextCursor: String?

        enum CodingKeys: CodingKey { case limit, hasMore, nextCursor }

        /// `nextCursor` is written as `null` on the last page, as REQ CAT-1 says.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(limit, forKey: .limit)
            try container.encode(hasMore, forKey: .hasMore)
            try container.encode(nextCursor, forKey: .nextCursor)
        }
    }

    var pillars: [Group]
    var uncategorizedFunnels: [FunnelJSON]
    var pagination: Pagination

    enum CodingKeys: String, CodingKey {
        case pillars
        case uncategorizedFunnels = "uncategorized_funnels"
        case pagination
    }
}

/// A funnel as the catalog shows it.
struct FunnelJSON: Encodable {
    var id: String
    var slug: String
    var title: String
    var description: String
    var isActive: Bool
    var tier: String
    var version: Int
    var updatedAt: String

    init(_ funnel: Funnel) {
        id = funnel.id
        slug = funnel.slug
        title = funnel.title
        description = funnel.description
        isActive = funnel.isActive
        tier = funnel.tier
        version = funnel.version
        updatedAt = ISO8601.string(funnel.updatedAt)
    }
}

/// A funnel's definition: the steps a client renders.
struct DefinitionJSON: Encodable {
    struct Step: Encodable {
        var id: String
        var prompt: String
    }

    var slug: String
    var version: Int
    var steps: [Step]
}

/// The catalog cursor: `base64(JSON {"title", "slug"})` of the last item of the previous page.
enum Cursor {
    private struct Position: Codable {
        var title: String
        var slug: String
    }

    static func encode(title: String, slug: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(Position(title: title, slug: slug))) ?? Data()).base64EncodedString()
    }

    /// The position, or `nil` for text that is not a cursor.
    static func decode(_ cursor: String) -> (title: String, slug: String)? {
        guard let data = Data(base64Encoded: cursor), let position = try? JSONDecoder().decode(Position.self, from: data) else {
            return nil
        }
        return (position.title, position.slug)
    }
}
