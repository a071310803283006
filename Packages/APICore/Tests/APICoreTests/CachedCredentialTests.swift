import APICoreTestServer
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import APICore
@testable import APICoreREST

/// What the HTTP cache keeps beside a response can never be replayed as a credential (security review,
/// finding 5): a thief of the caches folder finds neither the bearer token a response varied on nor the
/// cookie a server set.
@Suite(.timeLimit(.minutes(10))) struct CachedCredentialTests {
    @Test func aResponseVaryingOnCredentialsKeepsNoTokenAndNoCookieOnDisk() async throws {
        try await withTestServer({ router in
            router.get("profile") { _, _ in
                reply(
                    .ok, #"{"id":9,"name":"profile"}"#,
                    [.cacheControl: "private, max-age=300", .vary: "Authorization, Cookie", .setCookie: "sid=cookie-secret-42; HttpOnly"])
            }
        }) { server in
            let first = try ClientFixture(baseURL: server.baseURL, credentials: Credentials(accessToken: "token-secret-17", userId: "u1"))
            var request = APIRequest<Item>.item("/profile", cacheable: Cacheable(key: "profile", timeout: .seconds(300), isUplifted: true))
            request.headerFields[.cookie] = "session=cookie-sent-99"
            let fetched = try await first.client.send(request)
            #expect(fetched.source == .network)
            // The caller saw the server's Set-Cookie; the files hold no credential of any kind.
            #expect(first.directory.anyFileContains(#""name":"profile""#), "positive control: the body is on disk")
            for secret in ["token-secret-17", "cookie-secret-42", "cookie-sent-99"] {
                #expect(!first.directory.anyFileContains(secret), "\(secret) is on disk")
            }
            // A hit from memory carries the stored Set-Cookie (the suite's headers-store-Set-Cookie)…
            let cached = try await first.client.send(request, policy: .returnCacheDataDontFetch)
            #expect(cached.source == .cache)
            #expect(cached.headerFields[.setCookie] == "sid=cookie-secret-42; HttpOnly")
            // After a relaunch the same credentials still match (the hash's key is kept with the caches)…
            let relaunched = try ClientFixture(
                baseURL: server.baseURL, credentials: Credentials(accessToken: "token-secret-17", userId: "u1"), directory: first.directory)
            relaunched.clock.set(to: first.clock.now())
            let again = try await relaunched.client.send(request, policy: .returnCacheDataDontFetch)
            #expect(again.value.id == 9)
            #expect(again.headerFields[.setCookie] == nil, "…a hit read back from disk has none: no file held it")
            // …and another token of the same user does not.
            let otherToken = try ClientFixture(
                baseURL: server.baseURL, credentials: Credentials(accessToken: "token-other", userId: "u1"), directory: first.directory)
            otherToken.clock.set(to: first.clock.now())
            await #expect(throws: APIError.notCached()) {
                try await otherToken.client.send(request, policy: .returnCacheDataDontFetch)
            }
            #expect(server.count("/profile") == 1)
        }
    }
}
