import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import CacheKit
import Foundation
import GRDB
import Logging
import MIBApp
import SessionKit

// The names the documentation's examples take as given: an app's own values (its server's address, its
// folders, its logger) and the clients an earlier step of the same page made. The examples are compiled,
// never run, so a given has no value.

/// Stands for a value an example takes as given.
package func given<T>() -> T {
    fatalError("the documentation's examples are compiled, never run")
}

package var api: URL { given() }
package var url: URL { given() }
package var baseURL: URL { given() }
package var graphQLURL: URL { given() }
package var caches: URL { given() }
package var cachesURL: URL { given() }
package var applicationSupport: URL { given() }
package var support: URL { given() }
package var logger: Logger { given() }
package var email: String { given() }
package var password: String { given() }
package var userId: String { given() }
package var user: String { given() }
package var id: String { given() }
package var query: String { given() }
package var session: SessionManager { given() }
package var events: AuthEvents { given() }
package var container: DependencyContainer { given() }
package var registry: KitRegistry { given() }
package var environment: CacheEnvironment { given() }
package var unified: UnifiedCacheManager { given() }
package var rest: RESTClient { given() }
package var graphQL: GraphQLClient { given() }
package var queue: MutationQueue { given() }
package var images: ImageCache { given() }
package var app: Composition { given() }
package var connectivity: TransportConnectivity { given() }
package var currentKeyPin: String { given() }
package var backupKeyPin: String { given() }

/// What a screen does with a value: shows it.
package func render(_ value: Any) {}
/// What a screen does with a sentence: shows it briefly.
package func toast(_ message: String?) {}
/// The app's sign-in screen.
package func showSignIn() {}
/// The app's contacts screen.
package func showContacts() {}
package var folder: URL { given() }
package var intermediatePin: String { given() }
package var backupPin: String { given() }
package var keys: IntentKeys { given() }
/// Sends the app's request with this idempotency key.
package func send(idempotencyKey: String) async throws {}
/// The app's home screen.
package func showHome() {}
/// What a screen does with a value and its label.
package func show(_ value: Any, label: Any) {}
