import APICore
import APICoreREST
import APICoreTesting
import CacheKit
import CacheKitTesting
import Foundation
import HTTPTypes

/// `RESTClient` answering from response headers the input chooses, through every cache policy, a
/// later revalidation, `forward` (the proxy's path), `updates(for:)` and an unsafe method's
/// invalidation.
///
/// The input: its first byte picks the status, its second how far the clock moves; then
/// `Name: value` lines up to an empty line are the response's fields; the rest is the body.
public enum RESTFuzz {
    static let statuses = [200, 203, 204, 206, 300, 301, 302, 304, 307, 308, 400, 401, 404, 410, 500, 501, 503]

    /// The status, the clock step, the fields and the body an input describes.
    static func response(_ data: Data) -> (status: Int, step: Double, fields: HTTPFields, body: Data) {
        let bytes = Array(data)
        let status = statuses[Int(bytes.first ?? 0) % statuses.count]
        let step = Double(bytes.count > 1 ? bytes[1] : 0) * 997
        var fields = HTTPFields()
        var index = min(2, bytes.count)
        while index < bytes.count {
            let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
            let line = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end + 1
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append(HTTPField(name: name, value: value))
        }
        return (status, step, fields, Data(bytes[min(index, bytes.count)...]))
    }

    /// One input. An `Age` the cache generates (on a response it serves) must be delta-seconds.
    public static func run(_ data: Data) async throws {
        let (status, step, fields, body) = response(data)
        let transport = RecordingTransport()
        for method in [HTTPRequest.Method.get, .post] {
            transport.stub(method, "/r") { _ in .success(TransportResponse(status: status, headerFields: fields, body: body)) }
        }
        let clock = ManualClock()
        let environment = CacheEnvironment(clock: clock, logger: silentLogger,
                                           cachesDirectory: scratchDirectory.appendingPathComponent("rest"))
        let base = "http://127.0.0.1:1"
        guard let baseURL = URL(string: base) else { return }
        let client = RESTClient(configuration: .init(baseURL: baseURL, transport: transport, environment: environment,
                                                     retry: .none, sleeper: RecordingSleeper()))
        let requestFields: HTTPFields = [.acceptLanguage: "en", .accept: "application/json"]
        let request = APIRequest<Data>(path: "/r", headerFields: requestFields)
        var uplifted = request
        uplifted.cacheable = Cacheable(key: "r", timeout: .useDefault, isUplifted: true)
        func check(_ response: APIResponse<Data>) throws {
            // The network's own fields are passed on as they came; only the cache's Age is checked.
            guard response.source == .cache else { return }
            if let age = response.headerFields[.age], age.isEmpty || !age.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                throw FuzzViolation("served Age '\(age)' is not delta-seconds")
            }
        }
        for policy in CachePolicy.allCases {
            if let response = try? await client.send(request, policy: policy) { try check(response) }
        }
        clock.advance(by: step)
        for candidate in [request, uplifted] {
            if let response = try? await client.send(candidate) { try check(response) }
        }
        if let response = try? await client.forward(method: .get, url: base + "/r", headerFields: requestFields, body: nil) {
            try check(response)
        }
        clock.advance(by: step * 1_000)
        do {
            for try await update in client.updates(for: request) { try check(update) }
        } catch let violation as FuzzViolation {
            throw violation
        } catch {}
        _ = try? await client.forward(method: .post, url: base + "/r", headerFields: requestFields, body: Data())
        if let response = try? await client.send(request, policy: .returnCacheDataDontFetch) { try check(response) }
        try? await client.cacheParticipant.clearAll()
    }
}
