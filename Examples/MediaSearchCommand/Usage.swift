/// The help texts.
enum Usage {
    static let overview = """
        mediasearch: search iTunes and browse TMDB's popular films, through Courier.

        Usage: mediasearch [--offline] [--json] [--verbose] <command> [options]

        Commands:
          search <term> [--media KIND] [--page N] [--limit N] [--country CC]
                                 search the iTunes Store (music, movies, apps, books, …)
          lookup <id>…           iTunes items by id
          popular [--page N]     TMDB's popular films, 20 a page
          movie <id>             a TMDB film's details
          poster <id> [--size w500] [--output FILE]
                                 download a TMDB film's poster

        Options:
          --offline   answer from sample responses bundled with the program (no network, no key)
          --json      print machine-readable JSON instead of a table
          --verbose   log each request (secrets redacted) with its timing to standard error
          --allow-insecure-http
                      let the TMDB key go over plain http to a host other than this machine
          --help      show help for a command

        Environment:
          TMDB_API_KEY, TMDB_ACCESS_TOKEN   TMDB's v3 key or v4 token (not needed with --offline)
          MEDIASEARCH_ITUNES_URL   the iTunes Search API (https://itunes.apple.com by default)
          MEDIASEARCH_TMDB_URL     TMDB's API (https://api.themoviedb.org/3 by default)
          MEDIASEARCH_IMAGE_URL    TMDB's images (https://image.tmdb.org/t/p/ by default)
          The three URLs point mediasearch at a mirror, a proxy or a local server; --offline
          ignores them. The TMDB key goes with every TMDB call, so a plain http TMDB URL must
          name this machine (127.0.0.1, ::1 or localhost) unless --allow-insecure-http is given.

        Example: mediasearch search "jack johnson" --media music --offline
        """

    static let topics: [String: String] = [
        "search": """
        Usage: mediasearch search <term> [--media KIND] [--page N] [--limit N] [--country CC]

        Searches the iTunes Store, 25 results a page.
          --media KIND    music, movies, apps, books, podcasts, audiobooks, music-videos,
                          tv-shows, short-films or all (the default)
          --page N        the page, from 1
          --limit N       results a page, 1 to 200 (25 by default)
          --country CC    the store's two-letter country code (US by default)

        Offline samples: "jack johnson" (music, all), "christopher nolan" (movies), "notes" (apps),
        "dune" (books), "science" (podcasts), "tolkien" (audiobooks), "taylor swift" (music-videos),
        "the office" (tv-shows), "pixar" (short-films).
        """,
        "lookup": """
        Usage: mediasearch lookup <id> [<id>…]

        Finds iTunes items by their ids (tracks, albums, artists, apps, books).
        Example: mediasearch lookup 909253 --offline
        """,
        "popular": """
        Usage: mediasearch popular [--page N]

        TMDB's popular films, 20 a page (offline: pages 1 to 3).
        """,
        "movie": """
        Usage: mediasearch movie <id>

        A TMDB film's details: year, runtime, genres, director, rating and overview.
        Example: mediasearch movie 27205 --offline
        """,
        "poster": """
        Usage: mediasearch poster <id> [--size w500] [--output FILE]

        Downloads a TMDB film's poster. Sizes: w92, w154, w185, w342, w500, w780, original.
        Without --output it is saved as <id>-<size>.<type> in the current folder; an existing
        file is never overwritten.
        """,
        "help": "Usage: mediasearch help [command]",
    ]

    static func text(for topic: String?) -> String {
        topic.flatMap { topics[$0] } ?? overview
    }
}
