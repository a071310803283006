import Foundation
import ReferenceBackend
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// Why pinning needs its own transport on Linux: FoundationNetworking's URLSession never asks its
    /// delegate to evaluate a server's certificate (its `NSURLAuthenticationMethodServerTrust` is marked
    /// unavailable: "swift-corelibs-foundation does not support methods of authentication that rely on the
    /// Darwin Security framework"), so a URLSession-based transport cannot pin there. If this test ever
    /// fails, Foundation gained the hook and `URLSessionTransport` could pin too.
    @Suite(.timeLimit(.minutes(10))) struct FoundationTrustTests {
        final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
            private let lock = NSLock()
            private var methods: [String] = []
            var seen: [String] { lock.withLock { methods } }

            func urlSession(
                _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
            ) {
                lock.withLock { methods.append(challenge.protectionSpace.authenticationMethod) }
                completionHandler(.performDefaultHandling, nil)
            }
        }

        @Test func urlSessionOnLinuxOffersNoServerTrustChallenge() async throws {
            let certificate = try TestCertificate()
            try await PinningTests.withHTTPSBackend(certificate) { backend in
                let recorder = ChallengeRecorder()
                let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                var request = URLRequest(url: backend.baseURL.appendingPathComponent("health"))
                request.timeoutInterval = 10
                // The self-signed certificate is refused by ordinary validation, with no chance to evaluate it.
                await #expect(throws: (any Error).self) { _ = try await session.data(for: request) }
                #expect(!recorder.seen.contains("NSURLAuthenticationMethodServerTrust"), "challenges: \(recorder.seen)")
            }
        }
    }
#endif
