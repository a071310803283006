/// One item of the __name__ feature, as the server sends it.
public struct __Name__Item: Codable, Sendable, Hashable, Identifiable {
    /// Its id.
    public var id: String
    /// Its title.
    public var title: String

    /// Creates an item.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
