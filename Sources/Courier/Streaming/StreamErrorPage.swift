import Foundation

/// The head of an unacceptable status and as much of its body as a ``StreamBuffer`` keeps for the
/// error (``StreamOptions/maximumErrorBodySize``), decoded when it arrives encoded.
struct StreamErrorPage {
    private(set) var head: HTTPResponse
    private var body = Data()
    /// Decodes an encoded body; confined to the buffer's lock, which holds this page.
    private let decoder: Confined<ContentDecoder>?
    /// Whether the rest of the body is dropped (a coding Courier cannot decode, bytes that do not
    /// decode): the status and headers are kept without it.
    private var dropsBody: Bool

    init(head: HTTPResponse, decoder: ContentDecoder?, dropsBody: Bool) {
        self.head = head
        self.decoder = decoder.map(Confined.init)
        self.dropsBody = dropsBody
    }

    /// The head with the body kept.
    var response: HTTPResponse {
        var response = head
        response.body = body
        return response
    }

    /// Keeps what fits of `piece`; returns the response, cut, when the body is over `limit`.
    mutating func add(_ piece: Data, limit: Int) -> HTTPResponse? {
        guard !dropsBody else { return nil }
        let room = max(0, limit - body.count)
        var piece = piece
        if let decoder = decoder?.value {
            // One byte past the room tells a body over the limit; no more is inflated.
            decoder.feed(piece)
            guard let decoded = try? decoder.decode(maximum: room + 1) else {
                dropsBody = true
                return nil
            }
            piece = decoded
        }
        body.append(piece.prefix(room))
        return piece.count > room ? response : nil
    }
}
