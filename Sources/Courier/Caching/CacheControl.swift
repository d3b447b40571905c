import Foundation

/// The directives of `Cache-Control` header fields that the response cache acts on.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var isPrivate = false
    var maxAge: Int?
    var sharedMaxAge: Int?

    /// Reads every `Cache-Control` field of `headers`; unknown directives and bad values are ignored.
    init(_ headers: HTTPHeaders) {
        for value in headers.values(for: .cacheControl) {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                let argument =
                    parts.count == 2
                    ? parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                        in: CharacterSet(charactersIn: "\""))
                    : nil
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "private": isPrivate = true
                case "max-age": maxAge = argument.flatMap { Int($0) }.map { max(0, $0) } ?? maxAge
                case "s-maxage": sharedMaxAge = argument.flatMap { Int($0) }.map { max(0, $0) } ?? sharedMaxAge
                default: continue
                }
            }
        }
    }
}
