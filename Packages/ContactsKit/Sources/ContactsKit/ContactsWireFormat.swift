import APICore
import Foundation

extension ContactsClient {
    /// A success body's `data` (`{"data": …}`), decoded with ISO 8601 dates; the contacts API's one form.
    static func decodeEnvelope<T: Decodable>(_ data: Data) throws(APIError) -> T {
        do {
            return try ContactsStore.decoder.decode(DataEnvelope<T>.self, from: data).data
        } catch let error as DecodingError {
            throw APIError(error)
        } catch {
            throw .decoding(path: "", reason: "\(error)")
        }
    }
}

/// A success body: `{"data": …}`.
private struct DataEnvelope<T: Decodable>: Decodable {
    var data: T
}
