import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import ChatHistoryKit
import ContactsKit
import SessionKit

// One symbol from each module, and one kit installed into a container, as an app's composition root starts.
let container = DependencyContainer(cacheManager: UnifiedCacheManager(timeouts: CacheTimeoutPolicy()))
do {
    try container.install([AccountsFeatureKit()])
} catch {
    print("the kit could not be installed: \(error)")
}
let kits: [any FeatureKit.Type] = [
    SessionFeatureKit.self, CatalogFeatureKit.self, AccountsFeatureKit.self, ChatHistoryFeatureKit.self, ContactsFeatureKit.self,
]
let clients: [Any.Type] = [RESTClient.self, GraphQLClient.self, MutationQueue.self]
print("linked \(kits.count) feature kits and \(clients.count) clients from the data layer by URL")
