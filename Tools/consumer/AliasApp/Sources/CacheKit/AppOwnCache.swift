// The app's own module named CacheKit, whose name clashes with the data layer's.
public enum AppOwnCache { public static let name = "the app's own CacheKit" }
