import APICore
import APICoreOffline
import CacheKit
import ChatHistoryKit
import ContactsKit
import Foundation
import SessionKit

// The session's entry points an app calls: the launch, a sign-in and a logout; the first two start the same
// signed-in work.
extension Composition {
    /// The one call an app makes at launch: restores the stored session and, when a user is signed in,
    /// starts everything a signed-in app runs (``signIn(email:password:)`` starts the same): the queue
    /// replaying with ``connectivity`` (what the last run left queued is sent, at once and whenever the network
    /// returns), each kit's queue follower (what was refused, also while the app was not running, is
    /// undone on the device and reported; a change the last run recorded but never queued is undone), and each
    /// kit's first sync in the background when the user has none completed (the address book's, the chat
    /// history's). Later syncs are the app's: ``backgroundSync`` from the system's background-refresh task,
    /// ``lifecycle``'s return to the foreground, a screen's pull to refresh.
    ///
    /// ```swift
    /// let app = try Composition(baseURL: api, cachesDirectory: caches, logger: logger)
    /// switch await app.launch() {
    /// case .signedIn, .offline, .validating: showHome()
    /// case .signedOut, .expired: showSignIn()
    /// }
    /// ```
    /// - Parameter offlineFirst: `true` (the default) shows the user's cached content at once while the
    ///   token is checked with the server in the background (``SessionManager/launchOfflineFirst()``);
    ///   `false` waits for the check (``SessionManager/launch()``).
    /// - Returns: the session's state once launched (``SessionState/validating`` while an offline-first check
    ///   runs).
    @discardableResult
    public func launch(offlineFirst: Bool = true) async -> SessionState {
        guard offlineFirst else {
            await session.launch()
            if session.current.user != nil { await startSignedIn() }
            return session.current
        }
        // The queue and the followers start once the check has ended signed in (or offline): before, no token
        // is handed out past the offline grace, so what they did at once would be lost.
        if let check = session.launchOfflineFirst() {
            Task { [weak self] in
                await check.value
                guard let self, self.session.current.user != nil else { return }
                await self.startSignedIn()
            }
        }
        return session.current
    }

    /// Signs in through the session, then starts what a signed-in app runs, as ``launch(offlineFirst:)`` does.
    /// - Returns: the user's id.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> String {
        let user = try await session.signIn(email: email, password: password).userId
        await startSignedIn()
        return user
    }

    /// What a signed-in app runs, started by the launch and by a sign-in alike: the followers first, so their
    /// launch pass reads the queue before the replay changes it, then the queue.
    private func startSignedIn() async {
        await chat.followQueue()
        await contacts.followQueue()
        await queue.start(connectivity: connectivity)
        // A user with no sync completed (the first launch after a sign-in, or a first sync that was cut) gets one
        // at once, in the background: the kits' reads never start the first one.
        for runner in container.syncRunners where startsFirstSync {
            Task { _ = await runner.runIfNeverCompleted() }
        }
    }

    /// Logs out through the session: the server is told (its failure does not matter), every cache
    /// cleared, the token deleted, and the queue told (``keepsQueueAtLogout``).
    /// - Returns: the clearing's report and how long the whole logout took.
    public func logOut() async -> (report: ClearingReport, duration: Duration) {
        let started = ContinuousClock.now
        let report = await session.logOut()
        return (report, ContinuousClock.now - started)
    }
}
