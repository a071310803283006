import APICore
import APICoreTesting
import Foundation
import HTTPTypes
import __Name__Kit

/// Canned server answers for __Name__Kit's unit tests (tests over real HTTP use the reference backend).
public enum __Name__Responses {
    /// Stubs `GET /api/__name__` with `items`, cacheable for 5 minutes, with an ETag.
    public static func stubItems(_ items: [__Name__Item], on transport: RecordingTransport, eTag: String = "\"v1\"") throws {
        transport.stub(.get, "/api/__name__", status: 200,
                       headerFields: [.cacheControl: "private, max-age=300", .eTag: eTag, .contentType: "application/json"],
                       body: try JSONEncoder().encode(items))
    }
}

extension __Name__Responses {
    /// Stubs `POST /graphql` with `item` as the answer to `__Name__ItemQuery`, every `__typename` included.
    public static func stubItem(_ item: __Name__Item, on transport: RecordingTransport) {
        transport.stub(.post, "/graphql", status: 200, headerFields: [.contentType: "application/json"],
                       body: GraphQLStub.body(["__name__Item": .object(["id": .string(item.id), "title": .string(item.title)])],
                                              typenames: ["__name__Item": __Name__Keys.itemTypename]))
    }
}
