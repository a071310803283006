/// When a list should ask for its next page (REQ CAT-7): once the user has
/// scrolled past 80% of what is loaded, if more pages exist and none is being fetched.
public enum CatalogPrefetch {
    /// The share of the loaded list past which the next page is fetched.
    public static let threshold = 0.8

    /// Whether to fetch the next page now.
    /// - Parameters:
    ///   - scrollProgress: how far the user has scrolled through the loaded items, from 0 to 1.
    ///   - hasMore: whether the server said more pages follow.
    ///   - isFetching: whether a page is already being fetched.
    public static func shouldFetchNextPage(scrollProgress: Double, hasMore: Bool, isFetching: Bool) -> Bool {
        scrollProgress > threshold && hasMore && !isFetching
    }
}
