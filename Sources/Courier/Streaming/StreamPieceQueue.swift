import Foundation

/// The body pieces a ``StreamBuffer`` holds for its reader, in order: a piece taken is released at
/// once, so memory is bounded by what waits, however far the reader has read.
struct StreamPieceQueue {
    private var pieces: [Data] = []
    private var first = 0
    /// The bytes waiting.
    private(set) var count = 0

    /// Whether no piece waits.
    var isEmpty: Bool { first == pieces.count }

    /// The bytes the queue keeps referenced (for tests of its memory bound).
    var retainedByteCount: Int { pieces.reduce(0) { $0 + $1.count } }

    mutating func append(_ piece: Data) {
        pieces.append(piece)
        count += piece.count
    }

    /// The waiting pieces joined, up to `largest` bytes (a single larger piece whole), or `nil`
    /// when none waits.
    mutating func take(upTo largest: Int) -> Data? {
        guard first < pieces.count else { return nil }
        var piece = pieces[first]
        pieces[first] = Data()
        first += 1
        while first < pieces.count, piece.count < largest {
            piece.append(pieces[first])
            pieces[first] = Data()
            first += 1
        }
        if first == pieces.count {
            pieces.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 64, first * 2 >= pieces.count {
            // The slots read are empty already; dropping them now and then keeps the array short.
            pieces.removeFirst(first)
            first = 0
        }
        count -= piece.count
        return piece
    }

    /// Drops every piece.
    mutating func removeAll() {
        pieces.removeAll()
        first = 0
        count = 0
    }
}
