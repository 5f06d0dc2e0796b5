#if Network
    import Hummingbird
    import HummingbirdCore
    import HTTPTypes
    import Logging
    import NIOCore
    import NIOHTTPTypes

    /// HTTP/1 with a deadline on every request: a client that has sent part of a request but not all
    /// of it, head and body, within `deadline` (slowloris, a trickling body) gets a 408 and the
    /// connection is closed. `POST /sessions` (a dropped export of up to 64 MiB) gets four times as
    /// long from its head on. (Hummingbird's `idleTimeout` covers idle connections.)
    ///
    /// One timer a request, armed and cancelled on the event loop: the routes read bodies with no
    /// timer of their own (a task group racing a `Task.sleep` for every request cost more than the
    /// decoding of a command).
    struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
        typealias Value = HTTP1Channel.Value
        let inner: HTTP1Channel
        let deadline: TimeAmount

        init(responder: @escaping HTTPChannelHandler.Responder, idleTimeout: TimeAmount, deadline: TimeAmount) {
            self.deadline = deadline
            inner = HTTP1Channel(
                responder: responder,
                configuration: .init(additionalChannelHandlers: [RequestWatch(uploadDeadline: deadline * 4)], idleTimeout: idleTimeout))
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

    /// Sees request heads and ends and response heads and ends (after the HTTP codec) and tells the
    /// raw handler.
    /// Unchecked `Sendable`: a channel handler, touched only on its channel's event loop (NIO's rule).
    final class RequestWatch: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart
        private var raw: RawRequestDeadline?
        private let uploadDeadline: TimeAmount

        init(uploadDeadline: TimeAmount) {
            self.uploadDeadline = uploadDeadline
        }

        func handlerAdded(context: ChannelHandlerContext) {
            raw = try? context.pipeline.syncOperations.handler(type: RawRequestDeadline.self)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                raw?.headArrived(extendedTo: head.method == .post && head.path == "/sessions" ? uploadDeadline : nil)
            case .end: raw?.requestEnded()
            case .body: break
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(let head) where head.status.kind != .informational: raw?.responseStarted()
            case .end: raw?.responseEnded()
            default: break
            }
            context.write(data, promise: promise)
        }
    }

    /// First in the pipeline: arms a timer when the first bytes of a request arrive, disarmed once
    /// the whole request (head and body) has been decoded. When it fires, the client gets a 408 if no
    /// response is under way (else the connection is only closed), and the connection is closed: a
    /// route waiting for the rest of the body sees it cut short and applies nothing.
    /// Unchecked `Sendable`: a channel handler, touched only on its channel's event loop (NIO's rule).
    final class RawRequestDeadline: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        private let deadline: TimeAmount
        /// A request's first bytes have come and its end has not been decoded.
        private var receiving = false
        private var headArrived = false
        private var requestHeads = 0
        private var responseHeads = 0
        private var responseEnds = 0
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
            if !receiving {
                receiving = true
                headArrived = false
                arm(deadline, on: context.eventLoop)
            }
            context.fireChannelRead(data)
        }

        private func arm(_ delay: TimeAmount, on eventLoop: any EventLoop) {
            timer?.cancel()
            timer = eventLoop.scheduleTask(in: delay) { [weak self] in self?.expire() }
        }

        /// `extendedTo`: the rest of this request gets that long from now (an upload).
        func headArrived(extendedTo extended: TimeAmount?) {
            headArrived = true
            requestHeads += 1
            if let extended, receiving, let context { arm(extended, on: context.eventLoop) }
        }

        func requestEnded() {
            receiving = false
            timer?.cancel()
            timer = nil
        }

        func responseStarted() { responseHeads += 1 }
        func responseEnded() { responseEnds += 1 }

        private func expire() {
            timer = nil
            guard receiving, let context else { return }
            let midResponse = responseHeads != responseEnds
            let alreadyAnswered = headArrived && responseEnds >= requestHeads
            if midResponse || alreadyAnswered {
                context.close(promise: nil)
                return
            }
            let body = APIError(
                status: .requestTimeout, code: "requestTimeout",
                message: "The request did not arrive in time; send the whole request, head and body, at once."
            ).body
            let response =
                "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                + body
            // The write completes on the context's own loop, where the bound context may be used.
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(NIOAny(ByteBuffer(string: response))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
#endif
