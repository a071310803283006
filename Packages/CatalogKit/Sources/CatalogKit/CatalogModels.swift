/// A pillar the catalog groups funnels under (`{"id": "1", "title": "Stress & Resilience"}`).
public struct CatalogPillar: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// Display title.
    public var title: String

    /// Creates a pillar.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// A funnel as the catalog and the detail endpoint describe it. Only `id`, `slug` and `title` are
/// required, as in the contract's examples; the rest is decoded when the server sends it.
public struct CatalogFunnel: Codable, Sendable, Hashable {
    /// Stable identifier.
    public var id: String
    /// URL name, unique; the detail and definition endpoints take it.
    public var slug: String
    /// Display title; the catalog sorts by it, case-insensitively, then by slug.
    public var title: String
    /// A sentence about it.
    public var description: String?
    /// Whether it is offered.
    public var isActive: Bool?
    /// Who may take it (`free`, `premium`).
    public var tier: String?
    /// Bumped by the server at every change.
    public var version: Int?
    /// When it last changed, as the server wrote it (ISO 8601).
    public var updatedAt: String?

    /// Creates a funnel.
    public init(
        id: String, slug: String, title: String, description: String? = nil, isActive: Bool? = nil,
        tier: String? = nil, version: Int? = nil, updatedAt: String? = nil
    ) {
        self.id = id
        self.slug = slug
        self.title = title
        self.description = description
        self.isActive = isActive
        self.tier = tier
        self.version = version
        self.updatedAt = updatedAt
    }

    /// The catalog's order (REQ CAT-2): title ascending, ignoring ASCII case
    /// as the server's `COLLATE NOCASE` does, then slug ascending byte by byte.
    public static func catalogOrder(_ lhs: CatalogFunnel, _ rhs: CatalogFunnel) -> Bool {
        OrderKey(lhs) < OrderKey(rhs)
    }

    /// A funnel's place in ``catalogOrder(_:_:)``, made once: its title's bytes with ASCII letters folded, then its
    /// slug's bytes.
    struct OrderKey: Comparable {
        let title: [UInt8]
        let slug: [UInt8]

        init(_ funnel: CatalogFunnel) {
            title = funnel.title.utf8.map(CatalogFunnel.foldASCII)
            slug = Array(funnel.slug.utf8)
        }

        static func < (lhs: OrderKey, rhs: OrderKey) -> Bool {
            lhs.title != rhs.title ? lhs.title.lexicographicallyPrecedes(rhs.title) : lhs.slug.lexicographicallyPrecedes(rhs.slug)
        }
    }

    private static func foldASCII(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}

extension Sequence<CatalogFunnel> {
    /// The funnels in ``CatalogFunnel/catalogOrder(_:_:)``, each one's key made once and the positions sorted, not
    /// the funnels: a page's are sorted at every read of ``CatalogPage/funnels``.
    func sortedInCatalogOrder() -> [CatalogFunnel] {
        let all = Array(self)
        let keys = all.map(CatalogFunnel.OrderKey.init)
        return keys.indices.sorted { keys[$0] < keys[$1] }.map { all[$0] }
    }
}

/// One pillar and its funnels on a page.
public struct PillarWithFunnels: Codable, Sendable, Hashable {
    /// The pillar.
    public var pillar: CatalogPillar
    /// Its funnels on this page.
    public var funnels: [CatalogFunnel]

    /// Creates a group.
    public init(pillar: CatalogPillar, funnels: [CatalogFunnel]) {
        self.pillar = pillar
        self.funnels = funnels
    }
}

/// Where a page stands in its listing.
public struct CatalogPagination: Codable, Sendable, Hashable {
    /// Items per page.
    public var limit: Int
    /// Whether more pages follow.
    public var hasMore: Bool
    /// The opaque cursor of the next page; `nil` (or JSON `null`) on the last one.
    public var nextCursor: String?

    /// Creates pagination.
    public init(limit: Int, hasMore: Bool, nextCursor: String?) {
        self.limit = limit
        self.hasMore = hasMore
        self.nextCursor = nextCursor
    }
}

/// One page of `GET /api/funnels/catalog`: the `data` of the server's envelope.
public struct CatalogPage: Codable, Sendable, Hashable {
    /// Pillars with their funnels on this page.
    public var pillars: [PillarWithFunnels]
    /// Funnels with no pillar on this page (absent in the JSON means none).
    public var uncategorizedFunnels: [CatalogFunnel]
    /// Where the page stands; absent in the JSON means a single, last page.
    public var pagination: CatalogPagination?

    enum CodingKeys: String, CodingKey {
        case pillars
        case uncategorizedFunnels = "uncategorized_funnels"
        case pagination
    }

    /// Creates a page.
    public init(pillars: [PillarWithFunnels], uncategorizedFunnels: [CatalogFunnel] = [], pagination: CatalogPagination?) {
        self.pillars = pillars
        self.uncategorizedFunnels = uncategorizedFunnels
        self.pagination = pagination
    }

    /// Decodes a page; `uncategorized_funnels` and `pagination` may be absent or `null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pillars = try container.decode([PillarWithFunnels].self, forKey: .pillars)
        uncategorizedFunnels = try container.decodeIfPresent([CatalogFunnel].self, forKey: .uncategorizedFunnels) ?? []
        pagination = try container.decodeIfPresent(CatalogPagination.self, forKey: .pagination)
    }

    /// Whether more pages follow.
    public var hasMore: Bool { pagination?.hasMore ?? false }

    /// The cursor of the next page, when more follow.
    public var nextCursor: String? { hasMore ? pagination?.nextCursor : nil }

    /// Every funnel on the page in catalog order (the page groups them by pillar; the order runs
    /// across groups).
    public var funnels: [CatalogFunnel] {
        (pillars.flatMap(\.funnels) + uncategorizedFunnels).sortedInCatalogOrder()
    }
}

/// A funnel's definition (`GET /api/funnels/<slug>/definition`): the steps a client renders.
public struct FunnelDefinition: Codable, Sendable, Hashable {
    /// One question.
    public struct Step: Codable, Sendable, Hashable {
        /// Stable identifier.
        public var id: String
        /// What the user is asked.
        public var prompt: String

        /// Creates a step.
        public init(id: String, prompt: String) {
            self.id = id
            self.prompt = prompt
        }
    }

    /// The funnel's slug.
    public var slug: String
    /// The funnel's version this definition belongs to.
    public var version: Int?
    /// The steps, in order.
    public var steps: [Step]

    /// Creates a definition.
    public init(slug: String, version: Int? = nil, steps: [Step]) {
        self.slug = slug
        self.version = version
        self.steps = steps
    }
}
