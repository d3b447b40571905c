// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [
        .iOS(.v16),
        .macOS(.v13),
        .tvOS(.v16),
        .watchOS(.v9),
    ],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierImages", targets: ["CourierImages"]),
        .library(name: "ITunesSearch", targets: ["ITunesSearch"]),
        .library(name: "TMDB", targets: ["TMDB"]),
        .executable(name: "mediasearch", targets: ["MediaSearch"]),
        .executable(name: "courier-load", targets: ["CourierLoad"]),
        .executable(name: "courier-bench", targets: ["CourierBench"]),
        .executable(name: "courier-interop", targets: ["CourierInterop"]),
    ],
    targets: [
        // libcurl, loaded at run time: no development package is needed to build (see its header).
        .target(name: "CCourierCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // zlib, loaded at run time the same way: the codings Courier decodes itself.
        .target(name: "CCourierZlib", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // libpsl (the Public Suffix List), loaded at run time the same way: the cookie jar's suffixes.
        .target(name: "CCourierPSL", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "Courier", dependencies: ["CCourierCurl", "CCourierZlib", "CCourierPSL"]),
        .target(name: "CourierTesting", dependencies: ["Courier"]),
        .target(name: "CourierImages", dependencies: ["Courier"]),
        .target(name: "ITunesSearch", dependencies: ["Courier"], path: "Examples/ITunesSearch"),
        .target(name: "TMDB", dependencies: ["Courier"], path: "Examples/TMDB"),
        .target(
            name: "MediaSearchCommand",
            dependencies: ["Courier", "CourierTesting", "CourierImages", "ITunesSearch", "TMDB"],
            path: "Examples/MediaSearchCommand",
            resources: [.copy("Samples")]
        ),
        .executableTarget(name: "MediaSearch", dependencies: ["MediaSearchCommand"], path: "Examples/MediaSearch"),
        .executableTarget(name: "CourierLoad", dependencies: ["Courier"]),
        // One request in a child process, for tests of responses that crash FoundationNetworking.
        .executableTarget(name: "CourierFetch", dependencies: ["Courier"]),
        // The interoperability matrix's runner (scripts/interop starts the servers).
        .executableTarget(name: "CourierInterop", dependencies: ["Courier"]),
        .executableTarget(name: "CourierBench", dependencies: ["Courier", "CourierTesting", "CourierImages"]),
        .testTarget(name: "CourierTests", dependencies: ["Courier", "CourierTesting"]),
        // Starts the tests' child processes without Foundation's Process (see ChildProcess.swift).
        .target(name: "ChildProcess", path: "Tests/ChildProcess"),
        .testTarget(
            name: "CourierIntegrationTests",
            dependencies: ["Courier", "CourierTesting", "CourierImages", "ChildProcess"]
        ),
        .testTarget(name: "CourierImagesTests", dependencies: ["Courier", "CourierTesting", "CourierImages"]),
        .testTarget(
            name: "ExampleTests",
            dependencies: ["Courier", "CourierTesting", "ITunesSearch", "TMDB", "MediaSearchCommand", "ChildProcess"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
