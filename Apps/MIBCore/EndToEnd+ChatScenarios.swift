import APICore
import APICoreOffline
import CacheKit
import ChatHistoryKit
import Foundation
import MIBApp

// ChatHistoryKit: restore, offline questions, today's prediction.

extension EndToEnd {
    static let chatScenarios: [Scenario] = [
        Scenario(kit: "chat", name: "a login on a new device restores the whole history; clear and sync again gives the same") { app in
            try await app.signIn()
            let (history, subscription) = await app.chat.syncOnLogin()
            let report = try history.get()
            _ = try subscription.get()
            let first = try await Self.snapshot(app.chat)
            try require(!first.isEmpty && report.threads == first.count, "restored \(report.threads) threads, \(first.count) shown")
            try await app.chat.store.clearAll()
            try await app.chat.syncFromServer()
            let second = try await Self.snapshot(app.chat)
            try require(second == first, "the history differs after clear and sync")
            return "\(report.threads) threads and \(report.messages) messages restored in \(report.pages) page(s); the same after a clear"
        },
        Scenario(kit: "chat", name: "a question asked offline shows at once and is answered once when the network returns") { app in
            try await app.signIn()
            let (pending, shown) = try await whileOffline(app) {
                let message = try await app.chat.ask("Will the trip go well?")
                return (message, try await app.chat.messages(threadId: message.threadId))
            }
            try require(shown.map(\.state) == [.pending], "offline the thread shows \(shown.map(\.state))")
            // Back online, the queue the sign-in started sends the question by itself.
            try await drained(app)
            try await app.chat.syncFromServer()
            let messages = try await app.chat.messages(threadId: pending.threadId)
            try require(
                messages.count == 2 && messages.allSatisfy { $0.state == .sent },
                "the thread holds \(messages.map { "\($0.role):\($0.state)" })")
            return "pending offline, then one question and one reply: \"\(messages.last?.text ?? "")\""
        },
        Scenario(kit: "chat", name: "a background sync whose budget is spent stops before fetching, and the next one completes") { app in
            try await app.signIn()
            let spent = await app.backgroundSync.run(budget: 0)
            let stopped = try unwrap(spent.syncs.first { $0.name == "chat-history" }, "no chat-history sync registered")
            try require(
                stopped.outcome == .budgetExhausted && stopped.requests == 0 && app.transport.count("/chat-history/threads") == 0,
                "with no budget the sync \(stopped.outcome.rawValue) after \(stopped.requests) request(s)")
            let full = await app.backgroundSync.run()
            let synced = try unwrap(full.syncs.first { $0.name == "chat-history" }, "no chat-history sync registered")
            let shown = try await app.chat.threads()
            try require(
                full.isComplete && synced.mode == .full && (synced.counts["threads"] ?? 0) == shown.count && !shown.isEmpty,
                "the second run \(synced.outcome.rawValue) with \(synced.counts) for \(shown.count) threads shown")
            return
                "no budget: stopped before any request; 30 s: \(shown.count) threads in \(synced.requests) requests, \(synced.mode?.rawValue ?? "-")"
        },
        Scenario(kit: "chat", name: "today's prediction comes from the cache until the day ends, then is a miss with no request") { app in
            try await app.signIn()
            let first = try await app.chat.todaysPrediction()
            let requests = app.transport.count("/todays-prediction")
            _ = try await app.chat.todaysPrediction()
            try require(app.transport.count("/todays-prediction") == requests, "the second read reached the server")
            app.clock.advance(by: 86_400)
            let cached = await app.chat.cachedTodaysPrediction()
            try require(cached == nil && app.transport.count("/todays-prediction") == requests, "a new day still served \(first.date)")
            return "\(first.date): 1 request for 2 reads; the next day a miss known without the network"
        },
    ]

    /// Thread ids and their message ids, as the device shows them.
    static func snapshot(_ chat: ChatHistoryClient) async throws -> [String: [String]] {
        var history: [String: [String]] = [:]
        for thread in try await chat.threads() { history[thread.id] = try await chat.messages(threadId: thread.id).map(\.id) }
        return history
    }
}
