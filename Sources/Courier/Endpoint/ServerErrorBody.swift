/// The body a server sends with a non-2xx status, declared on an ``Endpoint`` as its `ErrorBody`.
///
/// ```swift
/// struct ITunesError: ServerErrorBody {
///     let errorMessage: String
///     var serverMessage: String? { errorMessage }
/// }
/// ```
public protocol ServerErrorBody: Decodable, Sendable {
    /// The server's own words, shown in ``APIError/description``; `nil` by default.
    var serverMessage: String? { get }
}

extension ServerErrorBody {
    /// No message.
    public var serverMessage: String? { nil }
}

/// The default error body: the message from the shapes most JSON APIs use.
///
/// It looks, in order, for a string under `message`, `errorMessage`, `error_description`,
/// `status_message`, `detail`, `error` (or `error.message`), `title`, and `errors[0].message`.
public struct ServerMessage: ServerErrorBody, Hashable {
    /// The message found, if any.
    public let serverMessage: String?

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let messageKeys = [
        "message", "errorMessage", "error_description", "status_message", "detail", "error", "title",
    ]

    /// Creates a message.
    public init(serverMessage: String?) {
        self.serverMessage = serverMessage
    }

    /// Decodes the first message found; fails when the body is not a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for name in Self.messageKeys {
            let key = Key(stringValue: name)
            if let text = try? container.decode(String.self, forKey: key), !text.isEmpty {
                serverMessage = text
                return
            }
            if let nested = try? container.nestedContainer(keyedBy: Key.self, forKey: key),
                let text = try? nested.decode(String.self, forKey: Key(stringValue: "message"))
            {
                serverMessage = text
                return
            }
        }
        if var errors = try? container.nestedUnkeyedContainer(forKey: Key(stringValue: "errors")),
            let first = try? errors.nestedContainer(keyedBy: Key.self),
            let text = try? first.decode(String.self, forKey: Key(stringValue: "message"))
        {
            serverMessage = text
            return
        }
        serverMessage = nil
    }
}
