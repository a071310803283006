import APICore
import APICoreGraphQL
import APICoreREST
import APICoreTesting
import CacheKit
import Foundation
import HTTPTypes

/// The GraphQL client reading any response body and writing it into both record stores.
public enum GraphQLFuzz {
    struct FuzzQuery: GraphQLQuery {
        static let document = """
            query Fuzz($id: ID!) {
              me { id name accounts { id balance tags } }
              account(id: $id) { id balance owner { id name } transactions(first: 2) { id amount } }
              list: accounts { ...Parts }
            }
            fragment Parts on Account { id balance }
            """
        var variables: [String: JSONValue] { ["id": "1"] }
    }

    struct Keys: CacheKeyProvider {
        let typenames: Set<String> = ["Account", "User", "Transaction"]
        func cacheKey(for object: [String: JSONValue], typename: String) -> NormalizedCacheKey? {
            guard let id = object["id"]?.stringValue else { return nil }
            return NormalizedCacheKey("\(typename):\(id)", accountId: typename == "Account" ? id : nil)
        }
    }

    struct Kit: FeatureKit {
        let name = "fuzz"
        func register(in registry: KitRegistry) throws(ContainerError) { try registry.addCacheKeyProvider(Keys()) }
    }

    /// The SQLite store, opened once per process (each input clears it).
    static let sqlite: SQLiteRecordStore? = try? SQLiteRecordStore(url: scratchDirectory.appendingPathComponent("records.sqlite"))

    /// One input, as the body of a 200 and of a 500, into the memory store and the SQLite store: any
    /// body gives data or a typed error, and what was written reads back from the cache.
    public static func run(_ data: Data) async throws {
        let stores: [any NormalizedRecordStore] = [InMemoryRecordStore()] + (sqlite.map { [$0] } ?? [])
        for store in stores {
            for status in [200, 500] {
                let transport = RecordingTransport()
                transport.stub(.post, "/graphql", status: status, body: data)
                let unified = UnifiedCacheManager(timeouts: CacheTimeoutPolicy())
                let container = DependencyContainer(cacheManager: unified)
                try container.install([Kit()])
                guard let endpoint = URL(string: "http://127.0.0.1:1/graphql") else { return }
                let client = GraphQLClient(configuration: .init(
                    endpoint: endpoint, transport: transport,
                    environment: CacheEnvironment(logger: silentLogger, cachesDirectory: scratchDirectory),
                    container: container, store: store, retry: .none))
                let fetched = try? await client.fetch(FuzzQuery(), policy: .fetchIgnoringCacheData)
                if fetched != nil {
                    do {
                        _ = try await client.fetch(FuzzQuery(), policy: .returnCacheDataDontFetch)
                    } catch .notCached {
                        // A response missing a selected field is stored partially and is a miss.
                    } catch {
                        throw FuzzViolation("a written response does not read back: \(error)")
                    }
                }
                _ = try? client.readLocal(FuzzQuery())
                _ = try? await client.statistics()
                try await client.clearAll()
            }
        }
    }
}
