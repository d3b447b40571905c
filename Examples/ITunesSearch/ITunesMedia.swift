/// The kinds of media the iTunes Search API searches, by the names people use.
public enum ITunesMedia: String, CaseIterable, Sendable, Codable {
    /// Songs, albums and artists.
    case music
    /// Feature films.
    case movies
    /// Apps (the API's `software`).
    case apps
    /// E-books (the API's `ebook`).
    case books
    /// Podcasts.
    case podcasts
    /// Audiobooks.
    case audiobooks
    /// Music videos.
    case musicVideos = "music-videos"
    /// TV shows and episodes.
    case tvShows = "tv-shows"
    /// Short films.
    case shortFilms = "short-films"
    /// Every kind at once.
    case all

    /// The value of the API's `media` parameter.
    public var apiValue: String {
        switch self {
        case .music: "music"
        case .movies: "movie"
        case .apps: "software"
        case .books: "ebook"
        case .podcasts: "podcast"
        case .audiobooks: "audiobook"
        case .musicVideos: "musicVideo"
        case .tvShows: "tvShow"
        case .shortFilms: "shortFilm"
        case .all: "all"
        }
    }

    /// The media kind for a name people type (`music`, `apps`, `tv-shows`) or an API value
    /// (`software`, `tvShow`), or `nil` when it is neither.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let media = ITunesMedia(rawValue: lowered)
            ?? Self.allCases.first(where: { $0.apiValue.lowercased() == lowered })
        {
            self = media
        } else {
            return nil
        }
    }
}
