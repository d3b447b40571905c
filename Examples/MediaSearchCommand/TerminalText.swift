/// Server-supplied text made safe to print on a terminal: control characters (C0, DEL, C1: the
/// escape sequences that move the cursor, clear the screen or retitle the window) and the
/// invisible bidirectional overrides that reorder what is shown are removed; line breaks and tabs
/// become spaces.
enum TerminalText {
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\t" || scalar == "\r" {
                scalars.append(" ")
            } else if !isUnsafe(scalar) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}
