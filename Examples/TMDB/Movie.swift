import Foundation

/// A film as TMDB lists it (`/movie/popular`, `/search/movie`).
public struct Movie: Sendable, Hashable, Codable, Identifiable {
    /// TMDB's identifier.
    public let id: Int
    /// The title in the requested language.
    public let title: String
    /// The title in the original language.
    public let originalTitle: String?
    /// The plot summary.
    public let overview: String?
    /// The poster's path, for ``TMDBClient/posterURL(_:size:)``.
    public let posterPath: String?
    /// The backdrop's path.
    public let backdropPath: String?
    /// `YYYY-MM-DD`, or empty when unknown.
    public let releaseDate: String?
    /// The average vote, 0–10.
    public let voteAverage: Double?
    /// How many votes.
    public let voteCount: Int?
    /// TMDB's popularity score.
    public let popularity: Double?
    /// TMDB genre identifiers.
    public let genreIDs: [Int]?
    /// The ISO 639-1 code of the original language.
    public let originalLanguage: String?
    /// Whether it is adult content.
    public let adult: Bool?

    private enum CodingKeys: String, CodingKey {
        case id, title, originalTitle, overview, posterPath, backdropPath, releaseDate, voteAverage, voteCount
        case popularity, originalLanguage, adult
        case genreIDs = "genreIds"
    }

    /// Creates a movie.
    public init(id: Int, title: String, releaseDate: String? = nil, posterPath: String? = nil) {
        self.id = id
        self.title = title
        self.releaseDate = releaseDate
        self.posterPath = posterPath
        originalTitle = nil
        overview = nil
        backdropPath = nil
        voteAverage = nil
        voteCount = nil
        popularity = nil
        genreIDs = nil
        originalLanguage = nil
        adult = nil
    }

    /// The year of release, when known.
    public var releaseYear: Int? {
        guard let releaseDate, releaseDate.count >= 4 else { return nil }
        return Int(releaseDate.prefix(4))
    }
}

/// A page of films: `{"page", "results", "total_pages", "total_results"}`.
public struct MoviePage: Sendable, Hashable, Codable {
    /// This page's number, from 1.
    public let page: Int
    /// The films.
    public let results: [Movie]
    /// How many pages there are (TMDB serves at most 500).
    public let totalPages: Int
    /// How many films there are.
    public let totalResults: Int
}

/// A film's details (`/movie/{id}?append_to_response=credits`).
public struct MovieDetails: Sendable, Hashable, Codable, Identifiable {
    /// A genre.
    public struct Genre: Sendable, Hashable, Codable {
        /// TMDB's identifier.
        public let id: Int
        /// The name.
        public let name: String
    }

    /// Cast and crew.
    public struct Credits: Sendable, Hashable, Codable {
        /// A crew member.
        public struct CrewMember: Sendable, Hashable, Codable {
            /// The person's name.
            public let name: String
            /// The job, such as `Director`.
            public let job: String?
        }

        /// The crew.
        public let crew: [CrewMember]?
    }

    /// TMDB's identifier.
    public let id: Int
    /// The title.
    public let title: String
    /// The tagline.
    public let tagline: String?
    /// The plot summary.
    public let overview: String?
    /// `YYYY-MM-DD`.
    public let releaseDate: String?
    /// Minutes.
    public let runtime: Int?
    /// The genres.
    public let genres: [Genre]?
    /// The poster's path.
    public let posterPath: String?
    /// The average vote, 0–10.
    public let voteAverage: Double?
    /// The IMDb identifier.
    public let imdbID: String?
    /// `Released`, `Post Production`, …
    public let status: String?
    /// Cast and crew, when asked for.
    public let credits: Credits?

    private enum CodingKeys: String, CodingKey {
        case id, title, tagline, overview, releaseDate, runtime, genres, posterPath, voteAverage, status, credits
        case imdbID = "imdbId"
    }

    /// The directors named in the credits.
    public var directors: [String] {
        credits?.crew?.filter { $0.job == "Director" }.map(\.name) ?? []
    }

    /// The year of release, when known.
    public var releaseYear: Int? {
        guard let releaseDate, releaseDate.count >= 4 else { return nil }
        return Int(releaseDate.prefix(4))
    }
}

/// `/configuration`: where images live and in which sizes.
public struct TMDBConfiguration: Sendable, Hashable, Codable {
    /// The image settings.
    public struct Images: Sendable, Hashable, Codable {
        /// The HTTPS base URL of images, such as `https://image.tmdb.org/t/p/`.
        public let secureBaseUrl: URL
        /// The poster sizes, such as `w92` … `original`.
        public let posterSizes: [String]
    }

    /// The image settings.
    public let images: Images
}
