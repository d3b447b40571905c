import Foundation

extension WebSocket {
    /// The peer's messages, as they arrive (see ``WebSocket`` for the reading rules).
    public var messages: Messages { Messages(socket: self) }

    /// The peer's messages decoded as JSON into `type` with the client's decoder, text and binary
    /// alike.
    ///
    /// ```swift
    /// for try await quote in socket.messages(as: Quote.self) { print(quote.price) }
    /// ```
    ///
    /// A message that does not decode ends the loop with ``APIError/Kind/decoding``, whose message
    /// names the message's number and what failed; the socket then closes as when leaving the loop.
    public func messages<Value: Decodable>(as type: Value.Type) -> DecodedMessages<Value> {
        DecodedMessages(messages: messages, decoder: decoder)
    }

    /// The peer's messages, as an `AsyncSequence`.
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = WebSocketMessage

        let socket: WebSocket

        /// Reads messages; leaving the loop closes the socket.
        public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
            /// The hold of the socket's one reading iterator; `nil` for any other.
            let reader: WebSocketReadingLoop?

            /// The next message; `nil` once the socket closed with a close handshake.
            ///
            /// - Throws: ``APIError`` when the socket ends otherwise or another iterator reads it,
            ///   or `CancellationError`.
            public mutating func next() async throws -> WebSocketMessage? {
                guard let reader else { throw WebSocketEngine.secondReaderError }
                return try await reader.socket.engine.next()
            }
        }

        /// Starts reading: the first iterator made reads the socket; any other is refused.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(reader: socket.engine.claimReader() ? WebSocketReadingLoop(socket: socket) : nil)
        }
    }

    /// The peer's messages decoded from JSON (``WebSocket/messages(as:)``).
    public struct DecodedMessages<Value: Decodable>: AsyncSequence, Sendable {
        /// A decoded message.
        public typealias Element = Value

        let messages: Messages
        let decoder: JSONDecoder

        /// Reads and decodes messages; leaving the loop closes the socket.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var messages: Messages.AsyncIterator
            let decoder: JSONDecoder
            var count = 0

            /// The next message, decoded; `nil` once the socket closed with a close handshake.
            ///
            /// - Throws: ``APIError/Kind/decoding`` for a message that does not decode, ``APIError``
            ///   as ``WebSocket/Messages/AsyncIterator/next()`` does, or `CancellationError`.
            public mutating func next() async throws -> Value? {
                guard let message = try await messages.next() else { return nil }
                count += 1
                let data: Data
                switch message {
                case .text(let text): data = Data(text.utf8)
                case .binary(let binary): data = binary
                }
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    let socket = messages.reader?.socket
                    throw APIError(
                        .decoding,
                        message: "WebSocket message #\(count): "
                            + DecodingDiagnosis.describe(error, decoding: String(describing: Value.self), body: data),
                        request: socket?.request, response: socket?.response, underlyingError: error)
                }
            }
        }

        /// Starts reading (see ``WebSocket/Messages/makeAsyncIterator()``).
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(messages: messages.makeAsyncIterator(), decoder: decoder)
        }
    }
}

/// An iterator's hold on its socket: the reading loop is over, and the socket closes with 1001
/// (going away), when it goes.
final class WebSocketReadingLoop: Sendable {
    let socket: WebSocket

    init(socket: WebSocket) {
        self.socket = socket
    }

    deinit {
        socket.engine.abandon()
    }
}
