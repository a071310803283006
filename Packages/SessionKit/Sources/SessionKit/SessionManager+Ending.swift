import APICore
import CacheKit
import Foundation
import HTTPTypes
import Logging

// How a session ends: logout, account switch, deletion, expiry (every cache cleared first).
extension SessionManager {
    /// Logs out: every cache is cleared, the token deleted and the session's end heard by everyone first (the
    /// queue discards or keeps the user's changes), then the server is told (whether that succeeds or not).
    /// Local first: a process killed during the server's answer leaves nothing of the user signed in, and its
    /// relaunch never takes the logout for an expiry. Returns the clearing's report.
    @discardableResult
    public func logOut() async -> ClearingReport {
        // Stop handing out the token first, so no request leaves with it.
        let token = state.withLock { state in
            defer { state.token = nil }
            return state.token
        }
        // The token's user is the one logging out, also while the launch's check runs (nobody is published then).
        let report = await end(to: .signedOut, expecting: nil, cause: .logout, ending: token?.userId)
        if let token {
            do {
                let response = try await send(.post, "/auth/logout", token: token.accessToken)
                if !(200..<300).contains(response.status) {
                    configuration.logger.info("The server logout failed; cleared anyway", metadata: ["status": "\(response.status)"])
                }
            } catch {
                configuration.logger.info("The server logout failed; cleared anyway", metadata: ["error": "\(error)"])
            }
        }
        return report
    }

    /// Switches away from account `accountId`: that account's cached data is cleared, the user's
    /// other data (profile, other accounts) stays.
    @discardableResult
    public func switchAccount(from accountId: String) async -> ClearingReport {
        await configuration.caches.clearCache(forAccountId: accountId)
    }

    /// Registers local data that account deletion must erase beyond the caches and the token
    /// (preferences, queued mutations, downloaded files). `erase` receives the deleted user's id.
    public func addEraser(_ name: String, _ erase: @escaping @Sendable (_ userId: String?) async throws -> Void) {
        state.withLock { $0.erasers.append((name, erase)) }
    }

    /// Deletes the account's local traces (REQ OFF-9): every cache, the token, and every
    /// registered eraser's data; the session returns to its first-launch state (signed out).
    ///
    /// The stored token is replaced first by the deletion's marker (``StoredToken/deletionMarker(of:)``), which stays
    /// until everything is erased: a process killed meanwhile, or an eraser that fails, leaves it, and the next
    /// ``launch()``, ``launchOfflineFirst()`` or sign-in finishes the deletion (every cache cleared again, every eraser
    /// run for the same user) before anything else, and signs nobody in.
    /// - Returns: what was erased and what failed, by name.
    @discardableResult
    public func deleteAccountData() async -> ClearingReport {
        let (user, marked) = markAccountDeletion()
        var report = await end(
            to: .signedOut, expecting: nil, cause: .accountDeleted, alsoErasing: state.withLock { $0.erasers },
            deleting: user, marked: marked)
        report.operation = "deleteAccount"
        return report
    }

    /// Stores the deletion's marker in place of the token (the session's, else the one stored), and stops handing the
    /// token out in the same section, so no write of it (a check's, a mark of use) lands over the marker. Returns whose
    /// account it marks (`nil` when no token is held or stored: the erasers then run for nobody in particular), and
    /// whether the marker was stored.
    private func markAccountDeletion() -> (user: String?, marked: Bool) {
        tokenFile.withLock { _ in
            let held = state.withLock { state -> StoredToken? in
                defer { state.token = nil }
                return state.token
            }
            guard let token = held ?? (try? configuration.tokenStore.load()) else { return (nil, false) }
            // A deletion left unfinished and asked again: its marker stays, for this one to finish.
            if token.erasingAccount == true { return (token.userId, true) }
            do {
                try configuration.tokenStore.save(.deletionMarker(of: token.userId))
                return (token.userId, true)
            } catch {
                configuration.logger.error("Could not mark the account's deletion", metadata: ["error": "\(error)"])
                return (token.userId, false)
            }
        }
    }

    /// A deletion of the account an earlier run began and did not finish (killed, or an eraser failed): its marker is
    /// the stored token. Finished now: nobody signed in, every cache cleared again and every eraser run for its
    /// user, then the marker deleted (kept again if an eraser still fails). `nil` when no deletion is left unfinished.
    func finishAccountDeletionLeftUnfinished() -> Task<Void, Never>? {
        guard let marker = try? configuration.tokenStore.load(), marker.erasingAccount == true else { return nil }
        configuration.logger.notice("Finishing an account deletion an earlier run left unfinished")
        transition {
            $0.session = .signedOut
            $0.token = nil
        }
        return Task {
            await self.end(
                to: .signedOut, expecting: nil, cause: .accountDeleted, alsoErasing: self.state.withLock { $0.erasers },
                deleting: marker.userId, marked: true)
        }
    }

    /// Registers work to cancel when the session ends (expiry, logout, deletion): a booking flow, an
    /// upload. Returns the task.
    @discardableResult
    public func cancelOnSessionEnd<Success: Sendable, Failure: Error>(_ task: Task<Success, Failure>) -> Task<Success, Failure> {
        let id = state.withLock { state in
            let id = state.nextWork
            state.nextWork += 1
            state.work[id] = { task.cancel() }
            return id
        }
        Task { [weak self] in
            _ = await task.result
            _ = self?.state.withLock { $0.work.removeValue(forKey: id) }
        }
        return task
    }

    /// A 401 or 403 from any client ends a live session once: the first takes the token away (later
    /// ones, and those for another user's token, are then ignored), the work is cancelled, every
    /// cache cleared, the token deleted, and the state becomes expired.
    func handle(_ event: AuthEvent) async {
        defer { state.withLock { $0.handledAuthEvents += 1 } }
        let expired = state.withLock { state -> StoredToken? in
            guard state.session.user != nil || state.session == .validating, let token = state.token,
                event.userId == nil || event.userId == token.userId
            else { return nil }
            return token
        }
        guard let expired else { return }
        let expiry = SessionExpiry(status: event.kind == .unauthorized ? 401 : 403, path: event.path)
        configuration.logger.info(
            "The server ended the session",
            metadata: ["status": "\(expiry.status)", "endpoint": "\(EndpointTemplate.of(path: event.path))"])
        await end(to: .expired(expiry), expecting: expired, cause: .expired)
    }

    /// Registers what must hear every end of a session (logout, expiry of any cause, account deletion, and
    /// any sign-in, which ends whoever was before): `handler` runs once per end, after the token stops being
    /// handed out and before the caches are cleared and the new state is published, so whatever it drops
    /// is gone before an observer sees the session's next state. A handler must not end the session itself
    /// (`logOut()` from a handler ends it again, without end) nor wait for the session's next state (published
    /// after every handler returned).
    public func onSessionEnd(_ handler: @escaping @Sendable (SessionEnd) async -> Void) {
        state.withLock { $0.endHandlers.append(handler) }
    }

    /// Tells every ``onSessionEnd(_:)`` handler, in the order they were registered.
    func announceEnd(_ end: SessionEnd) async {
        for handler in state.withLock({ $0.endHandlers }) { await handler(end) }
    }

    /// Ends the session: stops handing out the token (only if it is still `expecting`, when given)
    /// and cancels registered work at once; tells every ``onSessionEnd(_:)`` handler; clears every cache, runs
    /// `erasers` and deletes the stored token; and only then publishes `final`, so an observer that sees it can rely on
    /// nothing of the user being left. An account's deletion (`deleting` its user; `marked` when its marker is stored)
    /// keeps the marker when anything failed, for the next launch to finish; any other ending leaves a marker alone.
    /// `ending` names the user when the caller took the token already (a logout), for a session whose state names
    /// nobody (a launch's check still running).
    @discardableResult
    func end(
        to final: SessionState, expecting: StoredToken?, cause: SessionEnd.Cause,
        alsoErasing erasers: [(name: String, erase: @Sendable (_ userId: String?) async throws -> Void)] = [],
        deleting deleted: String? = nil, marked: Bool = false, ending known: String? = nil
    ) async -> ClearingReport {
        let ending = state.withLock { state -> (cancels: [@Sendable () -> Void], userId: String?)? in
            if let expecting, state.token != expecting { return nil }
            defer { state.token = nil }
            defer { state.work = [:] }
            return (Array(state.work.values), state.token?.userId ?? state.session.user?.userId)
        }
        guard let (cancels, held) = ending else { return ClearingReport(operation: "clearAllCaches") }
        let userId = deleted ?? held ?? known
        for cancel in cancels { cancel() }
        await announceEnd(SessionEnd(userId: userId, cause: cause))
        var report = await configuration.caches.clearAllCaches()
        for eraser in erasers {
            do {
                try await eraser.erase(userId)
                report.succeeded.append(eraser.name)
            } catch {
                report.failed.append(.init(participant: eraser.name, error: "\(error)"))
            }
        }
        if marked, !report.failed.isEmpty {
            report.failed.append(.init(participant: "token", error: "kept as the deletion's marker: the next launch finishes it"))
        } else {
            do {
                // A sign-in that completed meanwhile saved its own token: never deleted here. Nor a deletion's marker,
                // unless this is that deletion's end: a logout beside a deletion leaves it to the deletion.
                try tokenFile.withLock { _ in
                    guard state.withLock({ $0.token == nil }), marked || (try? configuration.tokenStore.load())?.erasingAccount != true
                    else { return }
                    try configuration.tokenStore.delete()
                }
                report.succeeded.append("token")
            } catch {
                configuration.logger.error("Could not delete the stored token", metadata: ["error": "\(error)"])
                report.failed.append(.init(participant: "token", error: "\(error)"))
            }
        }
        // A sign-in that completed meanwhile keeps its own state.
        transition { state in
            if state.token == nil { state.session = final }
        }
        return report
    }
}
