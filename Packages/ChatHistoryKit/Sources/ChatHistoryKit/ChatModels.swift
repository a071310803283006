import CacheKit
import Foundation

/// Which history a thread belongs to.
public enum ChatArea: String, Sendable, Hashable, Codable, CaseIterable {
    /// Questions to the astrologer.
    case chat
    /// Compatibility matches.
    case compatibility
}

/// A conversation, as the history keeps it.
public struct ChatThread: Sendable, Hashable, Codable, Identifiable {
    /// Chosen by the client that created it.
    public var id: String
    /// Its title.
    public var title: String
    /// Chat or compatibility.
    public var area: ChatArea
    /// When it was created.
    public var createdAt: Date
    /// When a message was last added.
    public var updatedAt: Date

    /// Creates a thread.
    public init(id: String, title: String, area: ChatArea, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = title
        self.area = area
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One message of a thread.
public struct ChatMessage: Sendable, Hashable, Codable, Identifiable {
    /// Where a message stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// On the server.
        case sent
        /// Shown locally, waiting in the mutation queue.
        case pending
        /// Refused by the server for good.
        case failed
    }

    /// Chosen by the client that wrote it: a retry or a replay never makes a second message.
    public var id: String
    /// Its thread.
    public var threadId: String
    /// `user` or `assistant`.
    public var role: String
    /// The text.
    public var text: String
    /// When it was written.
    public var createdAt: Date
    /// Sent, pending or failed.
    public var state: State

    /// Creates a message.
    public init(id: String, threadId: String, role: String, text: String, createdAt: Date, state: State = .sent) {
        self.id = id
        self.threadId = threadId
        self.role = role
        self.text = text
        self.createdAt = createdAt
        self.state = state
    }
}

/// Today's prediction for the signed-in user.
public struct TodaysPrediction: Sendable, Hashable, Codable {
    /// The day it is for (`YYYY-MM-DD`).
    public var date: String
    /// The text.
    public var text: String
}

/// Where and when someone was born: the input of every astro computation.
public struct BirthData: Sendable, Hashable, Codable {
    /// `1990-04-12T06:30`, local time of the place.
    public var dateTime: String
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double

    /// Creates birth data.
    public init(dateTime: String, latitude: Double, longitude: Double) {
        self.dateTime = dateTime
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The form the server takes: `<dateTime>@<lat>,<lon>`.
    public var query: String { "\(dateTime)@\(latitude),\(longitude)" }

}

/// A birth chart.
public struct AstroChart: Sendable, Hashable, Codable {
    /// The sun sign.
    public var sun: String
    /// The moon sign.
    public var moon: String
    /// The rising sign.
    public var ascendant: String
}

/// A year's dasha period or transits.
public struct AstroPeriod: Sendable, Hashable, Codable {
    /// The year.
    public var year: Int
    /// The ruling planet.
    public var ruler: String
    /// What the year holds.
    public var highlights: [String]
}

/// The user's subscription: premium status and today's quota.
public struct SubscriptionProfile: Sendable, Hashable, Codable {
    /// Whether the user is premium.
    public var premium: Bool
    /// Questions asked today.
    public var questionsToday: Int
    /// Questions allowed a day.
    public var dailyLimit: Int
    /// The user's birth data, kept by the server: what a new device restores astro data from.
    public var birthData: BirthData?
}

/// What a sync did.
public struct ChatSyncReport: Sendable, Hashable {
    /// Threads received (new or changed).
    public var threads = 0
    /// Messages received.
    public var messages = 0
    /// Pages of threads fetched.
    public var pages = 0
}
