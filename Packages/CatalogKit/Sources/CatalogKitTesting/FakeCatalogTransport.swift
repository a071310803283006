import APICore
import CacheKit
import CatalogKit
import Foundation
import HTTPTypes

/// A catalog server in memory, for unit tests of the kit's logic: it serves
/// `GET /api/funnels/catalog` from a list of funnels with the contract's cursors, `ETag` and 304s,
/// and records every request. Tests against real HTTP use the reference backend instead.
///
/// ```swift
/// let server = FakeCatalogTransport(funnels: FakeCatalogTransport.funnels(12))
/// let client = CatalogClient(sharing: .init(baseURL: FakeCatalogTransport.baseURL, transport: server))
/// ```
public final class FakeCatalogTransport: HTTPTransport {
    /// The base URL to configure clients with.
    public static let baseURL = URL(string: "http://catalog.test") ?? URL(fileURLWithPath: "/")

    private struct State {
        var funnels: [CatalogFunnel]
        var version = 1
        var requests: [TransportRequest] = []
        var refusedCursors: Set<String> = []
        var failure: TransportError?
    }

    private let state: Locked<State>

    /// Creates a server with these funnels (sorted into catalog order).
    public init(funnels: [CatalogFunnel]) {
        state = Locked(State(funnels: funnels.sorted(by: CatalogFunnel.catalogOrder)))
    }

    /// `count` funnels titled `Funnel 001`, `Funnel 002`, ... in two pillars.
    public static func funnels(_ count: Int) -> [CatalogFunnel] {
        (0..<max(count, 0)).map { offset in
            let digits = String(offset + 1)
            let number = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
            return CatalogFunnel(id: "f\(offset + 1)", slug: "funnel-\(offset + 1)", title: "Funnel \(number)")
        }
    }

    /// Every request received, in order.
    public var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// The `cursor` query value of every request received (`nil` for a first page).
    public var requestedCursors: [String?] {
        requests.map { request in
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "cursor" }?.value
        }
    }

    /// Replaces the funnels; the catalog's version (its `ETag`) changes.
    public func setFunnels(_ funnels: [CatalogFunnel]) {
        state.withLock {
            $0.funnels = funnels.sorted(by: CatalogFunnel.catalogOrder)
            $0.version += 1
        }
    }

    /// Makes the server refuse this cursor with `INVALID_CURSOR` (`"*"`: every cursor).
    public func refuse(cursor: String) {
        state.withLock { _ = $0.refusedCursors.insert(cursor) }
    }

    /// Makes every request fail with `error` until called with `nil`.
    public func fail(with error: TransportError?) {
        state.withLock { $0.failure = error }
    }

    /// Answers a catalog request.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let result: Result<TransportResponse, TransportError> = state.withLock { state in
            state.requests.append(request)
            if let failure = state.failure { return .failure(failure) }
            return .success(Self.answer(request, state: state))
        }
        return try result.get()
    }

    private static func answer(_ request: TransportRequest, state: State) -> TransportResponse {
        guard request.url.path == "/api/funnels/catalog" else {
            return json(404, #"{"success":false,"error":{"code":"NOT_FOUND","message":"No route."}}"#)
        }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let limit = query.first { $0.name == "limit" }?.value.flatMap(Int.init) ?? 50
        let cursor = query.first { $0.name == "cursor" }?.value
        var start = 0
        if let cursor {
            guard !state.refusedCursors.contains(cursor), !state.refusedCursors.contains("*"),
                let index = state.funnels.firstIndex(where: { $0.slug == cursor })
            else {
                return json(
                    400,
                    #"{"success":false,"error":{"code":"INVALID_CURSOR","message":"Pagination cursor is invalid or expired. Please restart from the first page."}}"#
                )
            }
            start = index + 1
        }
        let eTag = "\"funnels:v\(state.version)\""
        var fields: HTTPFields = [.eTag: eTag, .cacheControl: "public, max-age=300, must-revalidate", .contentType: "application/json"]
        if request.headerFields[.ifNoneMatch] == eTag {
            fields[.contentType] = nil
            return TransportResponse(status: 304, headerFields: fields, body: Data())
        }
        let slice = Array(state.funnels.dropFirst(start).prefix(limit))
        let hasMore = start + slice.count < state.funnels.count
        let page = CatalogPage(
            pillars: [PillarWithFunnels(pillar: CatalogPillar(id: "p1", title: "All"), funnels: slice)],
            pagination: CatalogPagination(limit: limit, hasMore: hasMore, nextCursor: hasMore ? slice.last?.slug : nil))
        let body = (try? JSONEncoder().encode(FakeEnvelope(success: true, data: page))) ?? Data()
        return TransportResponse(status: 200, headerFields: fields, body: body)
    }

    private static func json(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headerFields: [.contentType: "application/json"], body: Data(text.utf8))
    }

    private struct FakeEnvelope: Encodable {
        var success: Bool
        var data: CatalogPage
    }
}
