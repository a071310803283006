import APICore
import CacheKit
import CacheKitTesting
import ContactsKit
import Foundation
import MIBApp
import MIBCore
import ReferenceBackend
import Testing

/// A logout (any clearing) stops the sync run going at once, its request in flight included, through the real
/// composition: the next user's sync never waits on the previous user's request (REQ OFF-13).
@Suite(.timeLimit(.minutes(10))) struct LogoutStopsTheSyncTests {
    @Test func aLogoutCancelsTheSyncsRequestInFlightAndTheNextUsersSyncNeverWaitsOnIt() async throws {
        try await withBackend(5) { fixture in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let hook = Locked<HookTransport?>(nil)
            let app = try DemoComposition(
                baseURL: fixture.backend.baseURL, cachesDirectory: directory.url.appendingPathComponent("caches"),
                transport: {
                    let made = HookTransport(try ToolTransport.factory())
                    hook.withLock { $0 = made }
                    return made
                }, logger: AppLifeTests.quiet)
            let transport = try #require(hook.withLock { $0 })
            _ = try await app.signIn()
            // Alice's first page never gets an answer: it ends only when cancelled (or, broken, after 100 s).
            let held = Locked<[TransportError]>([])
            let inFlight = Locked(false)
            transport.before { request, _ in
                guard request.url.path == "/contacts", held.withLock({ $0.isEmpty }) else { return nil }
                inFlight.withLock { $0 = true }
                let ended = await neverAnswered()
                held.withLock { $0.append(ended) }
                return ended
            }
            let alicesRun = Task { await app.composition.contacts.syncNow() }
            try await waitUntil("Alice's first page in flight") { inFlight.withLock { $0 } }
            _ = await app.logOut()
            let report = await alicesRun.value
            #expect(held.withLock { $0 } == [.cancelled], "the request in flight at the logout was not cancelled")
            #expect(report.outcome != .completed, "\(report.outcome)")

            _ = try await app.signIn(email: "bob@example.com", password: "Password2")
            let bobsRun = await app.composition.contacts.syncNow()
            #expect(bobsRun.outcome == .completed, "\(bobsRun.outcome)")
        }
    }
}
