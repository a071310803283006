import APICore
import APICoreREST

/// Pages of one listing joined in catalog order: each funnel once, none skipped, grouped by pillar
/// as the pages group them.
public struct CatalogListing: Sendable, Hashable {
    /// Every funnel, in catalog order, each once.
    public private(set) var funnels: [CatalogFunnel] = []
    /// Pillars with their funnels in catalog order, pillars in the order they first appeared.
    public private(set) var pillars: [PillarWithFunnels] = []
    /// Funnels with no pillar, in catalog order.
    public private(set) var uncategorizedFunnels: [CatalogFunnel] = []
    /// How many pages were joined.
    public private(set) var pageCount = 0
    /// The cursor of the page after the last one joined; `nil` when the listing is complete.
    public private(set) var nextCursor: String?
    /// How many pages came from each source (a fresh cached page made no request; a revalidated
    /// one cost a 304 with no body).
    public internal(set) var sources: [ResponseSource: Int] = [:]
    /// How many times the listing restarted from its first page after `INVALID_CURSOR`.
    public internal(set) var restarts = 0

    private var seenSlugs: Set<String> = []

    /// An empty listing.
    public init() {}

    /// Whether more pages follow the last one joined.
    public var hasMore: Bool { nextCursor != nil }

    /// Joins the next page. A funnel already joined is skipped (a page fetched after the catalog
    /// changed may repeat one), and one that sorts before the last joined funnel is put in its place.
    /// - Returns: how many funnels the page added.
    @discardableResult
    public mutating func append(_ page: CatalogPage) -> Int {
        pageCount += 1
        nextCursor = page.nextCursor
        let fresh = page.funnels.filter { seenSlugs.insert($0.slug).inserted }
        guard !fresh.isEmpty else { return 0 }
        let inOrder = funnels.last.map { last in fresh.allSatisfy { !CatalogFunnel.catalogOrder($0, last) } } ?? true
        funnels += fresh
        if !inOrder { funnels = funnels.sortedInCatalogOrder() }
        let freshSlugs = Set(fresh.map(\.slug))
        for group in page.pillars {
            let members = group.funnels.filter { freshSlugs.contains($0.slug) }
            guard !members.isEmpty else { continue }
            if let index = pillars.firstIndex(where: { $0.pillar.id == group.pillar.id }) {
                pillars[index].funnels = (pillars[index].funnels + members).sortedInCatalogOrder()
            } else {
                pillars.append(PillarWithFunnels(pillar: group.pillar, funnels: members.sortedInCatalogOrder()))
            }
        }
        let loose = page.uncategorizedFunnels.filter { freshSlugs.contains($0.slug) }
        if !loose.isEmpty { uncategorizedFunnels = (uncategorizedFunnels + loose).sortedInCatalogOrder() }
        return fresh.count
    }
}
