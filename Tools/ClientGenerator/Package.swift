// swift-tools-version:6.1
import PackageDescription

/// Builds swift-openapi-generator's command line for `scripts/generate-client`, in a package of its
/// own (and a `.build` of its own, here), so that FlowLog's package never builds the generator:
/// the generated sources of `FlowLogClient` are committed, and only their runtime is a dependency.
let package = Package(
    name: "ClientGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
    ],
    targets: [
        /// Nothing to run: a package needs a target for its dependency to be resolved and its
        /// `swift-openapi-generator` product built (`swift build --product swift-openapi-generator`).
        .target(name: "ClientGeneratorPin", path: "Sources/ClientGeneratorPin"),
    ]
)
