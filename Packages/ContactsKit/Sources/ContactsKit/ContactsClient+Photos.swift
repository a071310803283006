import APICore
import APICoreREST
import CacheKit
import Foundation

// Photos: thumbnails through the app's image cache, full-size photos fetched on demand and never stored, and
// only from the app's own server.
extension ContactsClient {
    /// The contact's thumbnail from the app's image cache, loaded once; `nil` when it has no photo.
    /// - Throws: ``ContactsError/photoMissing`` when the server has no such photo; ``ContactsError/api(_:)``
    ///   when it is not cached and cannot be loaded (offline: a transport error).
    public func thumbnail(of contact: Contact) async throws(ContactsError) -> Data? {
        guard let path = try Self.photoPath(of: contact) else { return nil }
        let user = try await currentUser()
        do {
            return try await rest.image(at: path, for: user, in: images, feature: "contacts.thumbnail")
        } catch {
            switch error {
            case .request(let cause): throw Self.photoError(cause)
            case .cache(let refused): throw .api(.transport(.other(reason: "\(refused)")))
            }
        }
    }

    /// The contact's full-size photo, fetched now and never stored.
    /// - Throws: ``ContactsError/photoMissing`` when the server has no such photo.
    public func fullPhoto(of contact: Contact) async throws(ContactsError) -> Data? {
        guard let path = try Self.photoPath(of: contact) else { return nil }
        var request = APIRequest<Data>(path: path, query: [URLQueryItem(name: "size", value: "full")], feature: "contacts.photo")
        request.owner = try await currentUser()
        do {
            return try await rest.send(request, policy: .fetchIgnoringCacheCompletely).value
        } catch {
            throw Self.photoError(error)
        }
    }

    /// A photo's failure as a screen acts on it: missing on the server, or the request's own.
    private static func photoError(_ error: APIError) -> ContactsError {
        if case .server(let answer) = error, answer.status == 404 { return .photoMissing }
        return .api(error)
    }

    /// The contact's photo path, which must be a path on the app's server (`/avatars/…`): an absolute
    /// URL or a `//host` from server data is refused, so a photo never makes the app call another host.
    static func photoPath(of contact: Contact) throws(ContactsError) -> String? {
        guard let path = contact.photoPath else { return nil }
        guard PathSegments.isServerPath(path) else {
            throw .api(.invalidRequest(reason: "The contact's photo is not on the app's server."))
        }
        return path
    }
}

extension ContactsClient {
    /// The photo paths of the contacts `ids` on the device, by id.
    func thumbnails(of ids: [String], lease: UserDatabases.Lease) -> [String: String] {
        var photos: [String: String] = [:]
        for id in ids {
            if let path = (try? store.contact(userId: lease.userId, id: id))??.photoPath { photos[id] = path }
        }
        return photos
    }

    /// Removes the user's thumbnails of the contacts among `photos` no longer on the device (deleted there, or
    /// a refused creation undone): a thumbnail never outlives its contact.
    func dropThumbnails(_ photos: [String: String], ofContactsGoneFrom lease: UserDatabases.Lease) {
        for (id, path) in photos where (try? store.contact(userId: lease.userId, id: id)) == .some(nil) {
            try? images.clear(forKey: path, user: lease.userId)
        }
    }
}
