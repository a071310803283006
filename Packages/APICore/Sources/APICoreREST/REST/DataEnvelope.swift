import APICore
import Foundation

/// The servers' success envelope, `{"success": true, "data": …}` (REQ CAT-1; the failure envelope is
/// `ServerError`). Kits pass ``decode(_:)`` as a request's `decode`.
///
/// ```swift
/// APIRequest<CatalogPage>(path: "/api/funnels/catalog", decode: DataEnvelope.decode)
/// ```
public enum DataEnvelope {
    private struct Success<Payload: Decodable>: Decodable {
        var success: Bool
        var data: Payload
    }

    /// The envelope's `data`, decoded; a body that does not decode names the coding path
    /// (`APIError/decoding(path:reason:)`).
    @Sendable public static func decode<Payload: Decodable & Sendable>(_ body: Data) throws(APIError) -> Payload {
        do {
            return try JSONDecoder().decode(Success<Payload>.self, from: body).data
        } catch let error as DecodingError {
            throw APIError(error)
        } catch {
            throw .decoding(path: "", reason: "\(error)")
        }
    }
}
