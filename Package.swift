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
        .executable(name: "courier-demo", targets: ["CourierDemo"]),
    ],
    targets: [
        .target(name: "Courier"),
        .target(name: "CourierTesting", dependencies: ["Courier"]),
        .executableTarget(
            name: "CourierDemo",
            dependencies: ["Courier", "CourierTesting"],
            path: "Examples/CourierDemo"
        ),
        .testTarget(name: "CourierTests", dependencies: ["Courier", "CourierTesting"]),
        .testTarget(name: "CourierIntegrationTests", dependencies: ["Courier", "CourierTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
