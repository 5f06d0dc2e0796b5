// swift-tools-version:6.1
import PackageDescription

/// A to-do list's log: FlowLog's core, unchanged, bound to the `TaskList` domain.
///
/// The core's sources name the domain they serve as `LogDecider`, from a module called
/// `LogBinding`, and import no domain's module (docs/architecture.md, "A domain"). FlowLog's own
/// package binds the shop; this one compiles the same sources (`Core/`, links to FlowLog's
/// `Sources/`) against `Sources/LogBinding`, which binds the list. Every call into the domain is
/// then as direct as it is in `flowlog`: nothing is generic over the domain at run time.
///
/// `tasklog` is FlowLog's command line compiled the same way: `Core/FlowLogCLI` links every folder
/// of FlowLog's but `Shop/`, and the files of this package's `Program/` (the program's name, its
/// subcommands, the list as text) take the place of FlowLog's `Program.swift` and `StateText.swift`.
let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

/// A core target: FlowLog's own sources, with FlowLog's dependencies between them (and its
/// exclusions and resources, for the server's embedded files).
func core(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = [], resources: [Resource]? = nil) -> Target {
    .target(name: name, dependencies: dependencies, path: "Core/\(name)", exclude: exclude, resources: resources, swiftSettings: crossModule)
}

let package = Package(
    name: "TaskList",
    platforms: [.macOS(.v15), .iOS(.v18), .macCatalyst(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TaskList", targets: ["TaskList"]),
        .executable(name: "tasklog", targets: ["tasklog"]),
    ],
    /// As FlowLog's own: PostgreSQL logs come with the `Network` trait (on by default), on SwiftNIO.
    traits: [
        .trait(name: "Network", description: "PostgreSQL logs, on SwiftNIO."),
        .default(enabledTraits: ["Network"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(name: "CLMDB", path: "Core/CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]),
        .target(name: "CLMDBGuard", dependencies: ["CLMDB"], path: "Core/CLMDBGuard"),
        core("FlowLogSystem", []),
        core("LMDB", ["CLMDB", "CLMDBGuard", "FlowLogSystem"]),
        core("Deciding", []),
        core("FlowLogBasics", ["Deciding", "FlowLogSystem", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        core("FlowLogDomain", ["Deciding", "FlowLogBasics"]),
        core("FlowLogStore", ["FlowLogBasics", "LogBinding", "FlowLogDomain", "Deciding", "FlowLogSystem"]),
        core(
            "FlowLog",
            ["FlowLogStore", "FlowLogBasics", "Deciding", "FlowLogSystem", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        core("FlowLogMemory", ["FlowLogStore", "FlowLogBasics", "FlowLogSystem"]),
        core("FlowLogHistory", ["Deciding", "FlowLogStore", "FlowLogBasics", "FlowLogSystem"]),
        core("FlowLogLMDB", ["FlowLogStore", "FlowLogBasics", "Deciding", "LMDB", "FlowLogSystem"]),
        core(
            "FlowLogPostgres",
            [
                "FlowLogStore", "FlowLogBasics", "Deciding",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Network"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Network"])),
            ]),
        core(
            "FlowLogProjectors", ["FlowLogStore", "FlowLogBasics", "FlowLogSystem", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        core(
            "FlowLogServer",
            [
                "Deciding", "FlowLog", "FlowLogHistory", "FlowLogMemory", "FlowLogProjectors", "FlowLogStore", "FlowLogBasics",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Network"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Network"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Network"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Network"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            exclude: ["Resources/README.md"],
            resources: [.embedInCode("Resources/inspector"), .embedInCode("Resources/openapi.json")]),
        core(
            "FlowLogTelemetry",
            [
                "FlowLogBasics", .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["Network"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Network"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Network"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        /// The command line, with the list's `Program.swift` and `StateText.swift` in place of the shop's.
        core(
            "FlowLogCLI",
            [
                "Deciding", "FlowLog", "FlowLogHistory", "FlowLogProjectors", "FlowLogSystem", "FlowLogLMDB", "FlowLogStore", "FlowLogBasics",
                .target(name: "FlowLogPostgres", condition: .when(traits: ["Network"])),
                .target(name: "FlowLogServer", condition: .when(traits: ["Network"])),
                .target(name: "FlowLogTelemetry", condition: .when(traits: ["Network"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .executableTarget(name: "tasklog", dependencies: ["FlowLogCLI"]),
        /// FlowLog's throwaway PostgreSQL server for tests (the one file of its test support that knows no domain).
        .target(name: "PostgresTesting", dependencies: ["FlowLogSystem"], path: "Core/PostgresTesting"),

        /// The list's rules: pure, on `Deciding` alone.
        .target(name: "TaskList", dependencies: ["Deciding"], swiftSettings: crossModule),
        /// The one place the core meets the list: `LogDecider` and the list's states as bytes and JSON.
        .target(name: "LogBinding", dependencies: ["TaskList", "FlowLogDomain", "FlowLogBasics", "Deciding"], swiftSettings: crossModule),
        .testTarget(
            name: "TaskListTests",
            dependencies: [
                "TaskList", "LogBinding", "Deciding", "tasklog", "FlowLog", "FlowLogStore", "FlowLogLMDB", "FlowLogMemory", "FlowLogHistory",
                "FlowLogBasics",
                .target(name: "FlowLogPostgres", condition: .when(traits: ["Network"])), "PostgresTesting",
                .target(name: "FlowLogServer", condition: .when(traits: ["Network"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Network"])),
            ]),
    ]
)

/// As FlowLog's own targets: existentials written `any P`, and imports internal unless a file says otherwise.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
