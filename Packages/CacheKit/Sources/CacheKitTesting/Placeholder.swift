import CacheKit
