import APICore
import APICoreREST
import CacheKit
import Foundation
import HTTPTypes
import Logging

// Today's prediction, astro data and the subscription: small cached reads, each per user.
extension ChatHistoryClient {
    /// Today's prediction, from the cache until midnight in the user's time zone, else from the server.
    public func todaysPrediction() async throws(ChatHistoryError) -> TodaysPrediction {
        let user = try await currentUser()
        let date = today()
        return try await cached(
            predictions, key: Self.predictionKey(user: user, date: date), user: user,
            APIRequest(
                path: "/todays-prediction", query: [URLQueryItem(name: "date", value: date)], feature: "chat.prediction",
                decode: DataEnvelope.decode))
    }

    /// Today's prediction if the cache has it for today (no request): `nil` once the day has ended.
    public func cachedTodaysPrediction() async -> TodaysPrediction? {
        guard let user = try? await currentUser() else { return nil }
        return await predictions.value(forKey: Self.predictionKey(user: user, date: today()), requester: user)
    }

    /// The key of a user's prediction for a date (it holds the user id; logs print it redacted).
    static func predictionKey(user: String, date: String) -> String { "todays_prediction:\(user):\(date)" }

    func today() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: environment.clock.now())
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    // MARK: Astro data

    /// The birth chart: forever in the cache, under `chart_<birthHash>`.
    public func chart(for birth: BirthData) async throws(ChatHistoryError) -> AstroChart {
        try await astro(charts, key: "chart_\(astroKey(for: birth))", path: "/astrodata/chart", birth: birth, year: nil)
    }

    /// The dasha period of `year`: forever, under `dasha_<birthHash>_<year>`.
    public func dasha(for birth: BirthData, year: Int) async throws(ChatHistoryError) -> AstroPeriod {
        try await astro(periods, key: "dasha_\(astroKey(for: birth))_\(year)", path: "/astrodata/dasha", birth: birth, year: year)
    }

    /// The transits of `year`: forever, under `transits_<birthHash>_<year>`.
    public func transits(for birth: BirthData, year: Int) async throws(ChatHistoryError) -> AstroPeriod {
        try await astro(periods, key: "transits_\(astroKey(for: birth))_\(year)", path: "/astrodata/transits", birth: birth, year: year)
    }

    /// The birth data changed: every chart, dasha and transit cached goes.
    public func birthDataChanged() async throws(ChatHistoryError) {
        do {
            try await charts.removeAll()
            try await periods.removeAll()
        } catch {
            throw .storage(reason: "\(error)")
        }
    }

    func astro<Value: Codable & Sendable>(
        _ cache: CacheManager<Value>, key: String, path: String, birth: BirthData,
        year: Int?
    ) async throws(ChatHistoryError) -> Value {
        let user = try await currentUser()
        let query = [URLQueryItem(name: "birth", value: birth.query)] + (year.map { [URLQueryItem(name: "year", value: String($0))] } ?? [])
        return try await cached(
            cache, key: key, user: user,
            APIRequest(path: path, query: query, feature: "chat.astro", decode: DataEnvelope.decode))
    }

    // MARK: Subscription

    /// The subscription: cached for the session only; `refresh` (at login) always asks the server.
    public func subscription(refresh: Bool = false) async throws(ChatHistoryError) -> SubscriptionProfile {
        let user = try await currentUser()
        return try await cached(
            subscriptions, key: "subscription", user: user, refresh: refresh ? .forceRefresh : .useCache,
            APIRequest(path: "/subscription/profile", feature: "chat.subscription", decode: DataEnvelope.decode))
    }

    /// What stands for `birth` in the astro cache keys: a keyed hash under the installation's secret, so
    /// neither the data nor a hash that guessed birth data could match is ever stored.
    public func astroKey(for birth: BirthData) -> String {
        environment.secret.hash(birth.query)
    }
}
