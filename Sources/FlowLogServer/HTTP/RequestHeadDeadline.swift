import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// HTTP/1 with a deadline on every request head: a client that has sent part of a request but
/// not its whole head within `deadline` (slowloris) gets a 408 and the connection is closed.
/// (Hummingbird's `idleTimeout` covers idle connections; a body that trickles in is bounded by
/// the routes' own deadline.)
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel
    let deadline: TimeAmount

    init(responder: @escaping HTTPChannelHandler.Responder, idleTimeout: TimeAmount, deadline: TimeAmount) {
        self.deadline = deadline
        inner = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [HeadWatch()], idleTimeout: idleTimeout))
    }

    var responder: HTTPChannelHandler.Responder { inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RawRequestDeadline(deadline: deadline), position: .first)
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Sees request heads and response ends (after the HTTP codec) and tells the raw handler.
final class HeadWatch: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart
    private var raw: RawRequestDeadline?

    func handlerAdded(context: ChannelHandlerContext) {
        raw = try? context.pipeline.syncOperations.handler(type: RawRequestDeadline.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { raw?.headArrived() }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { raw?.responseEnded() }
        context.write(data, promise: promise)
    }
}

/// First in the pipeline: arms a timer when the first bytes of a request arrive, disarmed once
/// the request's head has been decoded.
final class RawRequestDeadline: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let deadline: TimeAmount
    private var waitingForHead = true
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if waitingForHead, timer == nil {
            timer = context.eventLoop.scheduleTask(in: deadline) { [weak self] in self?.expire() }
        }
        context.fireChannelRead(data)
    }

    func headArrived() {
        waitingForHead = false
        timer?.cancel()
        timer = nil
    }

    func responseEnded() { waitingForHead = true }

    private func expire() {
        timer = nil
        guard waitingForHead, let context else { return }
        let body = #"{"error":{"code":"requestTimeout","message":"The request head did not arrive in time; send the whole request at once."}}"# + "\n"
        let response = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        context.writeAndFlush(NIOAny(ByteBuffer(string: response))).whenComplete { _ in context.close(promise: nil) }
    }
}
