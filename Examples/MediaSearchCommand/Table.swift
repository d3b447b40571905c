/// An aligned text table fitted to a width: when it is too wide, columns first give up what they
/// have beyond their preferred maximum, then the widest shrinks (cells truncated with "…") until
/// it fits.
struct Table {
    struct Column {
        let title: String
        /// The narrowest this column may become.
        let minimum: Int
        /// The widest this column becomes while the table does not fit, before others shrink further.
        let preferredMaximum: Int
        let alignsRight: Bool

        init(_ title: String, minimum: Int = 4, preferredMaximum: Int = .max, alignsRight: Bool = false) {
            self.title = title
            self.minimum = minimum
            self.preferredMaximum = max(minimum, preferredMaximum)
            self.alignsRight = alignsRight
        }
    }

    let columns: [Column]
    /// The cells, server-supplied text included: made safe for a terminal (``TerminalText``).
    let rows: [[String]]

    init(columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows.map { $0.map(TerminalText.clean) }
    }

    /// The table as lines no longer than `width` (unless even the minimum widths do not fit).
    func render(width: Int) -> String {
        let separator = "  "
        var widths = columns.indices.map { index in
            rows.map { Self.length($0[index]) }.max().map { max($0, Self.length(columns[index].title)) }
                ?? Self.length(columns[index].title)
        }
        let available = width - separator.count * (columns.count - 1)
        if widths.reduce(0, +) > available {
            widths = widths.indices.map { min(widths[$0], columns[$0].preferredMaximum) }
        }
        while widths.reduce(0, +) > available {
            let shrinkable = widths.indices.filter { widths[$0] > columns[$0].minimum }
            guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        var lines = [line(columns.map(\.title), widths: widths, separator: separator)]
        lines.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: separator))
        lines += rows.map { line($0, widths: widths, separator: separator) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func line(_ cells: [String], widths: [Int], separator: String) -> String {
        let padded = cells.enumerated().map { index, cell in
            let text = Self.truncate(cell, to: widths[index])
            let padding = String(repeating: " ", count: widths[index] - Self.length(text))
            return columns[index].alignsRight ? padding + text : text + padding
        }
        var text = padded.joined(separator: separator)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// How many columns `text` takes: one per character, two for wide East Asian and emoji ones.
    static func length(_ text: String) -> Int {
        text.reduce(0) { $0 + (isWide($1) ? 2 : 1) }
    }

    /// `text` cut to `width` columns with "…" at the end when it does not fit.
    static func truncate(_ text: String, to width: Int) -> String {
        guard length(text) > width else { return text }
        guard width > 1 else { return String(repeating: "…", count: max(0, width)) }
        var result = ""
        var used = 0
        for character in text {
            let size = isWide(character) ? 2 : 1
            if used + size > width - 1 { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    private static func isWide(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
