import APICore
import CacheKit
import Foundation
import Logging

/// A record created on the device under a client id, which the server stored under an id of its own.
public struct IdRemap: Sendable, Hashable {
    /// The id the device chose (what the creating mutation's ``QueuedMutation/creates`` named).
    public var clientId: String
    /// The id the server answered with.
    public var serverId: String
    /// The creating mutation's name: a kit settles the remaps of its own mutations.
    public var mutation: String

    /// A remap of `clientId` to `serverId`, learnt from `mutation`'s answer.
    public init(clientId: String, serverId: String, mutation: String) {
        self.clientId = clientId
        self.serverId = serverId
        self.mutation = mutation
    }
}

// Client ids remapped: a mutation that creates a record (``QueuedMutation/creates``) and is answered with the
// server's own id has every later queued mutation of its user rewritten, before any of them is sent, and the
// remap kept for its kit to rename what it stores.
extension MutationQueue {
    /// `user`'s remaps not yet settled by their kit, oldest first: each names a record the device created and
    /// the id the server gave it. Every queued mutation already says the server's id; the kit renames what it
    /// stores, then ``settleRemap(_:of:)``.
    public func idRemaps(of user: String) -> [IdRemap] {
        (try? existingStore(for: user)?.remaps()) ?? []
    }

    /// Takes a remap its kit has applied to what it stores off ``idRemaps(of:)``. The queue still rewrites what
    /// is enqueued later with it (a screen may still hold the client id), until the user's queue is erased.
    public func settleRemap(_ remap: IdRemap, of user: String) async {
        do {
            try existingStore(for: user)?.settle(remap)
        } catch {
            configuration.logger.error("A remap could not be settled", metadata: ["error": "\(error)"])
        }
    }

    /// The server's id in a create's answer: `data.id` of the envelope, or `id` at its root.
    static func serverId(in body: Data?) -> String? {
        guard let body, let answer = try? JSONValue.parse(body) else { return nil }
        return answer["data"]?["id"]?.stringValue ?? answer["id"]?.stringValue
    }
}

extension QueuedRequest {
    /// The request with `old` made `new` wherever it is an id: a path segment, or a JSON string (in a REST
    /// body or the GraphQL variables). A body that is not JSON, or does not mention `old`, is left as it is.
    func replacingId(_ old: String, with new: String) -> QueuedRequest {
        switch self {
        case .rest(let method, let path, let fields, let body):
            let query = path.firstIndex(of: "?").map { String(path[$0...]) } ?? ""
            let segments = path.prefix { $0 != "?" }.split(separator: "/", omittingEmptySubsequences: false)
            let rewritten = segments.map { $0 == old ? new : String($0) }.joined(separator: "/") + query
            var newBody = body
            if let body, let json = try? JSONValue.parse(body) {
                let replaced = json.replacingString(old, with: new)
                if replaced != json { newBody = replaced.serialized() }
            }
            return .rest(method: method, path: rewritten, headerFields: fields, body: newBody)
        case .graphQL(let document, let variables):
            return .graphQL(document: document, variables: variables.mapValues { $0.replacingString(old, with: new) })
        }
    }
}

extension JSONValue {
    /// The value with every string equal to `old` made `new`, at any depth.
    func replacingString(_ old: String, with new: String) -> JSONValue {
        switch self {
        case .string(let text): text == old ? .string(new) : self
        case .array(let items): .array(items.map { $0.replacingString(old, with: new) })
        case .object(let fields): .object(fields.mapValues { $0.replacingString(old, with: new) })
        default: self
        }
    }
}
