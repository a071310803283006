import APICore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// One request for a connection: its head, its body and where its response goes.
struct HTTP1Request {
    let head: HTTPRequestHead
    let body: Data?
    let promise: EventLoopPromise<HTTP1Exchange>
}

/// A response, and whether the connection it came on may carry another request.
struct HTTP1Exchange: Sendable {
    let response: TransportResponse
    let keepAlive: Bool
}

/// Speaks HTTP/1.1 on one connection, one request at a time (no pipelining). A response whose head keeps
/// the connection open (HTTP/1.1 without `Connection: close`) leaves the connection reusable.
final class HTTP1ClientHandler: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTP1Request
    typealias OutboundOut = HTTPClientRequestPart

    // Touched on the channel's event loop only.
    private var pending: EventLoopPromise<HTTP1Exchange>?
    private var requestKeepsAlive = true
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    private let maximumBodyBytes: Int

    /// A handler that reads bodies of at most `maximumBodyBytes`.
    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard pending == nil else {
            request.promise.fail(TransportError.other(reason: "a request is already in flight on this connection"))
            return
        }
        pending = request.promise
        requestKeepsAlive = request.head.isKeepAlive
        head = nil
        body.clear()
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let bytes = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var part):
            guard body.readableBytes + part.readableBytes <= maximumBodyBytes else {
                // Past the limit: nothing more is read, and the connection (mid-body) cannot be reused.
                pending?.fail(TransportError.responseTooLarge(limit: maximumBodyBytes))
                pending = nil
                body.clear()
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&part)
        case .end:
            guard let head, let pending else { return }
            self.pending = nil
            var fields = HTTPFields()
            for (name, value) in head.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            let response = TransportResponse(status: Int(head.status.code), headerFields: fields, body: Data(body.readableBytesView))
            pending.succeed(HTTP1Exchange(response: response, keepAlive: requestKeepsAlive && head.isKeepAlive))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        pending?.fail(error)
        pending = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.fail(TransportError.connectionLost(reason: "the server closed the connection before the response ended"))
        pending = nil
        context.fireChannelInactive()
    }
}
