/// Content types guessed from file extensions, for file bodies and multipart parts.
enum MediaType {
    private static let byExtension: [String: String] = [
        "aac": "audio/aac", "avif": "image/avif", "bmp": "image/bmp", "css": "text/css", "csv": "text/csv",
        "gif": "image/gif", "gz": "application/gzip", "heic": "image/heic", "htm": "text/html", "html": "text/html",
        "ico": "image/vnd.microsoft.icon", "jpeg": "image/jpeg", "jpg": "image/jpeg", "js": "text/javascript",
        "json": "application/json", "m4a": "audio/mp4", "md": "text/markdown", "mov": "video/quicktime",
        "mp3": "audio/mpeg", "mp4": "video/mp4", "pdf": "application/pdf", "png": "image/png",
        "svg": "image/svg+xml", "tar": "application/x-tar", "tif": "image/tiff", "tiff": "image/tiff",
        "txt": "text/plain", "wasm": "application/wasm", "wav": "audio/wav", "webm": "video/webm",
        "webp": "image/webp", "xml": "application/xml", "zip": "application/zip",
    ]

    /// The content type for a file name's extension; `application/octet-stream` when unknown.
    static func guess(forFileName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
