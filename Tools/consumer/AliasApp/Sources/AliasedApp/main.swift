// The app has a module of its own named CacheKit: the data layer's is imported as MIBCacheKit (moduleAliases).
import CacheKit
import CatalogKit
import MIBCacheKit

let manager = MIBCacheKit.UnifiedCacheManager(timeouts: MIBCacheKit.CacheTimeoutPolicy())
print("\(AppOwnCache.name) beside the data layer's, renamed MIBCacheKit: \(type(of: manager)), \(CatalogFeatureKit.self)")
