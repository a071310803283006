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
func given<T>() -> T {
    fatalError("the documentation's examples are compiled, never run")
}

var api: URL { given() }
var url: URL { given() }
var baseURL: URL { given() }
var graphQLURL: URL { given() }
var caches: URL { given() }
var cachesURL: URL { given() }
var applicationSupport: URL { given() }
var support: URL { given() }
var logger: Logger { given() }
var email: String { given() }
var password: String { given() }
var userId: String { given() }
var user: String { given() }
var id: String { given() }
var query: String { given() }
var session: SessionManager { given() }
var events: AuthEvents { given() }
var container: DependencyContainer { given() }
var registry: KitRegistry { given() }
var environment: CacheEnvironment { given() }
var unified: UnifiedCacheManager { given() }
var rest: RESTClient { given() }
var graphQL: GraphQLClient { given() }
var queue: MutationQueue { given() }
var images: ImageCache { given() }
var app: Composition { given() }
var connectivity: TransportConnectivity { given() }
var currentKeyPin: String { given() }
var backupKeyPin: String { given() }

/// What a screen does with a value: shows it.
func render(_ value: Any) {}
/// What a screen does with a sentence: shows it briefly.
func toast(_ message: String?) {}
/// The app's sign-in screen.
func showSignIn() {}
/// The app's contacts screen.
func showContacts() {}
