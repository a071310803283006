import APICore
import Foundation

/// A thread as the server sends it.
struct ThreadJSON: Decodable, Sendable {
    var id: String
    var title: String
    var area: String
    var createdAt: String
    var updatedAt: String
    /// The thread's messages, when the page embeds them (`include=messages`).
    var messages: [MessageJSON]?

    func thread() throws(ChatHistoryError) -> ChatThread {
        guard let created = ServerDate.parse(createdAt), let updated = ServerDate.parse(updatedAt) else {
            throw .api(.decoding(path: "threads[].updatedAt", reason: "not an ISO 8601 date"))
        }
        return ChatThread(id: id, title: title, area: ChatArea(rawValue: area) ?? .chat, createdAt: created, updatedAt: updated)
    }
}

/// A message as the server sends it.
struct MessageJSON: Decodable, Sendable {
    var id: String
    var threadId: String
    var role: String
    var text: String
    var createdAt: String

    func message() throws(ChatHistoryError) -> ChatMessage {
        guard let created = ServerDate.parse(createdAt) else {
            throw .api(.decoding(path: "messages[].createdAt", reason: "not an ISO 8601 date"))
        }
        return ChatMessage(id: id, threadId: threadId, role: role, text: text, createdAt: created, state: .sent)
    }
}

/// The server's ISO 8601 dates, with or without fractional seconds.
enum ServerDate {
    static func parse(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
}
