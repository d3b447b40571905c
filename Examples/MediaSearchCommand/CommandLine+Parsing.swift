import ITunesSearch
import TMDB

/// A command line, understood.
struct Invocation: Equatable {
    enum Command: Equatable {
        case search(term: String, media: ITunesMedia, page: Int, limit: Int, country: String?)
        case lookup(ids: [Int])
        case popular(page: Int)
        case movie(id: Int)
        case poster(id: Int, size: TMDBClient.PosterSize, output: String?)
        case help(topic: String?)
    }

    var command: Command
    var json = false
    var offline = false
    var verbose = false
    /// Whether a credential may go over plain HTTP to a host that is not loopback.
    var allowsInsecureHTTP = false
}

/// A command line that cannot be run: the message, and the help topic to show with it.
struct UsageError: Error, Equatable {
    let message: String
    let topic: String?
}

enum CommandLineParser {
    static let commands = ["search", "lookup", "popular", "movie", "poster", "help"]

    /// Reads the arguments (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var words: [String] = []
        var options: [String: String] = [:]
        var flags = Set<String>()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                words += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                words.append(argument)
                continue
            }
            let (name, inlineValue) = split(argument)
            switch name {
            case "--json", "--offline", "--verbose", "-v", "--help", "-h", "--allow-insecure-http":
                guard inlineValue == nil else {
                    throw UsageError(message: "\(name) takes no value", topic: words.first)
                }
                flags.insert(name == "-v" ? "--verbose" : name == "-h" ? "--help" : name)
            case "--media", "--page", "--limit", "--country", "--size", "--output", "-o":
                let key = name == "-o" ? "--output" : name
                if let inlineValue {
                    options[key] = inlineValue
                } else if index < arguments.count {
                    options[key] = arguments[index]
                    index += 1
                } else {
                    throw UsageError(message: "\(name) needs a value", topic: words.first)
                }
            default:
                throw UsageError(message: "unknown option \(name)", topic: words.first)
            }
        }
        guard let name = words.first else {
            return Invocation(command: .help(topic: nil), json: flags.contains("--json"))
        }
        guard commands.contains(name) else {
            throw UsageError(message: "unknown command \"\(name)\"", topic: nil)
        }
        let command =
            flags.contains("--help") || name == "help"
            ? .help(topic: name == "help" ? words.dropFirst().first : name)
            : try makeCommand(name, arguments: Array(words.dropFirst()), options: options)
        return Invocation(
            command: command, json: flags.contains("--json"), offline: flags.contains("--offline"),
            verbose: flags.contains("--verbose"), allowsInsecureHTTP: flags.contains("--allow-insecure-http")
        )
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func makeCommand(
        _ name: String, arguments: [String], options: [String: String]
    ) throws(UsageError) -> Invocation.Command {
        let allowed: Set<String> =
            switch name {
            case "search": ["--media", "--page", "--limit", "--country"]
            case "popular": ["--page"]
            case "poster": ["--size", "--output"]
            default: []
            }
        if let stray = options.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw UsageError(message: "\(name) does not take \(stray)", topic: name)
        }
        switch name {
        case "search":
            let term = arguments.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !term.isEmpty else { throw UsageError(message: "search needs a term", topic: name) }
            let mediaName = options["--media"] ?? "all"
            guard let media = ITunesMedia(name: mediaName) else {
                let kinds = ITunesMedia.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(message: "unknown media kind \"\(mediaName)\"; use one of: \(kinds)", topic: name)
            }
            let page = try number(options["--page"], name: "--page", in: 1...10_000, default: 1, topic: name)
            let limit = try number(options["--limit"], name: "--limit", in: 1...200, default: 25, topic: name)
            let country = options["--country"]
            if let country, country.count != 2 || !country.allSatisfy(\.isLetter) {
                throw UsageError(message: "--country takes a two-letter code such as US or GB", topic: name)
            }
            return .search(term: term, media: media, page: page, limit: limit, country: country?.uppercased())
        case "lookup":
            guard !arguments.isEmpty else { throw UsageError(message: "lookup needs an iTunes id", topic: name) }
            let ids = arguments.flatMap { $0.split(separator: ",") }.map(String.init)
            let parsed = ids.compactMap { Int($0) }.filter { $0 > 0 }
            guard parsed.count == ids.count else {
                throw UsageError(
                    message: "an iTunes id is a positive number, not \"\(ids.first { Int($0) == nil } ?? "")\"",
                    topic: name)
            }
            return .lookup(ids: parsed)
        case "popular":
            try noArguments(arguments, name: name)
            return .popular(page: try number(options["--page"], name: "--page", in: 1...500, default: 1, topic: name))
        case "movie":
            return .movie(id: try movieID(arguments, name: name))
        case "poster":
            let id = try movieID(arguments, name: name)
            let sizeName = options["--size"] ?? "w500"
            guard let size = TMDBClient.PosterSize(rawValue: sizeName) else {
                let sizes = TMDBClient.PosterSize.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(message: "unknown poster size \"\(sizeName)\"; use one of: \(sizes)", topic: name)
            }
            return .poster(id: id, size: size, output: options["--output"])
        default:
            return .help(topic: nil)
        }
    }

    private static func number(
        _ text: String?, name: String, in range: ClosedRange<Int>, default value: Int, topic: String
    ) throws(UsageError) -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                message: "\(name) takes a number from \(range.lowerBound) to \(range.upperBound)", topic: topic)
        }
        return number
    }

    private static func movieID(_ arguments: [String], name: String) throws(UsageError) -> Int {
        guard arguments.count == 1, let id = Int(arguments[0]), id > 0 else {
            throw UsageError(message: "\(name) needs one TMDB movie id, such as 27205", topic: name)
        }
        return id
    }

    private static func noArguments(_ arguments: [String], name: String) throws(UsageError) {
        if let first = arguments.first {
            throw UsageError(message: "\(name) takes no argument \"\(first)\"", topic: name)
        }
    }
}
