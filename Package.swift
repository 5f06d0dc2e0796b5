// swift-tools-version:6.1
import PackageDescription

/// FlowLog's targets are its layers; dependency arrows point inward only (docs/architecture.md):
/// `flowlog` (a tiny main) → `FlowLogCLI` (the command line and the composition root) → `FlowLog` (the
/// command pipeline), `FlowLogHistory` (replay, bisect, exports), `FlowLogProjections` (trackers,
/// views, the storage read model) and the storage backends `FlowLogLMDB` / `FlowLogPostgres` →
/// `FlowLogStore` (the log contract, on protocols) → `LogBinding` (the domain this package serves, as
/// `LogDecider`) → `FlowDomain` (pure) and `FlowLogDomain` (what the log needs of a domain) →
/// `FlowLogBasics` (I/O, codecs' building blocks, errors) and `Deciding` (the `Decider` shape). The
/// core's sources import no domain module, only `LogBinding`, which another package substitutes
/// (Examples/TaskList); the backends never see the pipeline; `FlowLogLMDB` → `LMDB` → `CLMDB`;
/// `FlowLogPostgres` → PostgresNIO (SwiftNIO, swift-nio-ssl, swift-crypto: the heavy part of a clean
/// build, which only targets that depend on it pay for); `FlowLogCLI` → `FlowLogServer` (`flowlog
/// serve`: Hummingbird on the same NIO stack) → `FlowLog`.
/// Release builds optimise across the package's modules: the codecs and the import pipeline are
/// generic over visitors and backends declared in other modules, and specialising them there is
/// what keeps one declaration per kind (and storage behind protocols) as fast as hand-written code.
let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

/// The `Network` trait (on by default) brings PostgreSQL (`--db postgres://…`) and the network parts
/// of the command line (`flowlog serve`): the SwiftNIO stack, whose first build takes minutes.
/// Without it nothing compiles NIO, tests included: the network targets' packages are dependencies
/// only with the trait, and their sources are `#if Network`. `scripts/demo` builds
/// the embedded LMDB `flowlog` without it (`--disable-default-traits`), in about a minute.
let network: TargetDependencyCondition? = .when(traits: ["Network"])

let package = Package(
    name: "FlowLog",
    /// `Mutex` (the Synchronization module) guards the code's shared state: macOS 15, iOS 18 and
    /// their siblings on Apple platforms; Linux has it with the toolchain.
    platforms: [.macOS(.v15), .iOS(.v18), .macCatalyst(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "flowlog", targets: ["flowlog"]),
        .library(name: "FlowDomain", targets: ["FlowDomain"]),
        .library(name: "FlowLog", targets: ["FlowLog", "FlowLogStore", "FlowLogBasics"]),
        .library(name: "FlowLogLMDB", targets: ["FlowLogLMDB"]),
        .library(name: "FlowLogPostgres", targets: ["FlowLogPostgres"]),
        /// The typed client of `flowlog serve`'s whole API, generated from docs/openapi.json (docs/client.md).
        .library(name: "FlowLogClient", targets: ["FlowLogClient"]),
        /// An app's own log (`AppLog`: dispatch, observe, sync in the background) and `push`/`pull`'s rules.
        .library(name: "FlowLogSync", targets: ["FlowLogSync"]),
        /// FlowLogClient over AsyncHTTPClient, for services whose binary already links NIO (`Network` trait).
        .library(name: "FlowLogClientNIO", targets: ["FlowLogClientNIO"]),
    ],
    traits: [
        .trait(name: "Network", description: "PostgreSQL logs (--db postgres://…) and the network parts of the command line, on SwiftNIO."),
        .default(enabledTraits: ["Network"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The HTTP server (`flowlog serve`): only FlowLogServer uses these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // FlowLogClient: the generated sources' runtime, and its two transports. The generator itself
        // is built by Tools/ClientGenerator (scripts/generate-client), never by this package.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // Spans: the tracing API everywhere (a no-op until a tracer is bootstrapped), and swift-otel's
        // OTLP/HTTP exporter in FlowLogTelemetry only (the gRPC exporter is not built).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        /// The operating system's C library (Glibc or Darwin), chosen in one file: nothing else imports it.
        .target(name: "FlowLogSystem", swiftSettings: crossModule),
        /// LMDB's reads with SIGSEGV and SIGBUS caught: a damaged page can make LMDB fault in its own code.
        .target(name: "CLMDBGuard", dependencies: ["CLMDB"]),
        .target(name: "LMDB", dependencies: ["CLMDB", "CLMDBGuard", "FlowLogSystem"], swiftSettings: crossModule),
        .target(name: "Deciding", swiftSettings: crossModule),
        .target(name: "FlowDomain", dependencies: ["Deciding"], swiftSettings: crossModule),
        /// What every layer above shares and no log defines: the I/O of lines and files, the JSON and
        /// binary codecs' building blocks, timestamps, access (URLs, token files) and `FlowLogError`.
        .target(
            name: "FlowLogBasics", dependencies: ["Deciding", "FlowLogSystem", .product(name: "Tracing", package: "swift-distributed-tracing")],
            swiftSettings: crossModule),
        /// What the log needs of a domain beyond deciding (`LogDomain`: its states and kept rows as
        /// bytes, their JSON and their upkeep in a writer's cache), which a domain's binding implements.
        .target(name: "FlowLogDomain", dependencies: ["Deciding", "FlowLogBasics"], swiftSettings: crossModule),
        /// The domain this package's logs serve: the shop (`FlowDomain`) and its `LogDomain`
        /// conformance, named `LogDecider`. The core imports this module and no domain's, so another
        /// package binds its own domain by declaring a `LogBinding` of its own over the same core
        /// sources (docs/architecture.md, "A domain"; Examples/TaskList builds `tasklog` that way).
        .target(
            name: "LogBinding", dependencies: ["FlowDomain", "FlowLogDomain", "FlowLogBasics", "Deciding"],
            swiftSettings: crossModule),
        /// The log contract the backends implement and everything above reads through: `EventLog` and its
        /// capabilities, records and their codecs, the append and forget rules, the fold of a stream,
        /// imports. A backend depends on this, never on the command pipeline.
        .target(
            name: "FlowLogStore", dependencies: ["FlowLogBasics", "LogBinding", "FlowLogDomain", "Deciding", "FlowLogSystem"],
            swiftSettings: crossModule),
        /// The command pipeline: commands read from the wire, decided against cached states, committed in
        /// groups through one writer (`send`, the typed commands, `serve`'s `POST /commands`).
        .target(
            name: "FlowLog",
            dependencies: [
                "FlowLogStore", "FlowLogBasics", "Deciding", "FlowLogSystem",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: crossModule),
        /// A complete backend in memory: for tests, the bench and scratch work.
        .target(
            name: "FlowLogMemory", dependencies: ["FlowLogStore", "FlowLogBasics", "FlowLogSystem"],
            swiftSettings: crossModule),
        /// What a log's history answers, on any backend: replay and its state changes, bisect,
        /// replay against recorded fingerprints, the NDJSON and CSV exports, and copies.
        .target(
            name: "FlowLogHistory", dependencies: ["Deciding", "FlowLogStore", "FlowLogBasics", "FlowLogSystem"],
            swiftSettings: crossModule),
        /// What every projector shares, whatever it projects: the `Projector` contract, the runner
        /// that feeds it batches under its lease, where each projector stands, the log serialised
        /// for runners that share parts, and the daily retention run. Knows no domain.
        .target(
            name: "FlowLogProjectors",
            dependencies: ["FlowLogStore", "FlowLogBasics", "FlowLogSystem", .product(name: "Tracing", package: "swift-distributed-tracing")],
            swiftSettings: crossModule),
        /// The side effects that follow the log: the trackers (Segment, GA4, their mappings, delivery
        /// and journals), the view configurations and the storage read model's projector. The log
        /// contract only knows their checkpoints and locks.
        .target(
            name: "FlowLogProjections",
            dependencies: [
                "Deciding", "FlowLogProjectors", "FlowLogStore", "FlowLogBasics", "FlowDomain", "FlowLogSystem",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: crossModule),
        /// The storage backends: on the log contract (`FlowLogStore`) and `Deciding`, never on the
        /// command pipeline or a domain.
        .target(
            name: "FlowLogLMDB", dependencies: ["FlowLogStore", "FlowLogBasics", "Deciding", "LMDB", "FlowLogSystem"],
            swiftSettings: crossModule),
        .target(
            name: "FlowLogPostgres",
            dependencies: [
                "FlowLogStore", "FlowLogBasics", "Deciding",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: network),
                .product(name: "Logging", package: "swift-log", condition: network),
            ],
            swiftSettings: crossModule
        ),
        /// The trackers' HTTPS transport (TLS, pooled connections, proxies from the environment) on
        /// AsyncHTTPClient: its own target, so only the `Network` build pays for it (docs/analytics.md).
        /// A device's log and a server's, kept in step: `push` and `pull` over a `SyncTransport`
        /// (the HTTP client is FlowLogHTTPClient's), with no network code of its own.
        .target(
            name: "FlowLogSync",
            dependencies: [
                "Deciding",
                "FlowLog", "FlowDomain", "FlowLogProjections", "FlowLogLMDB", "FlowLogSystem", "FlowLogStore",
                "FlowLogBasics", .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: crossModule),
        .target(
            name: "FlowLogHTTPClient",
            dependencies: [
                "FlowLogProjections",
                "FlowLogSync",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: network),
                .product(name: "NIOCore", package: "swift-nio", condition: network),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: network),
                "FlowLogBasics",
            ],
            swiftSettings: crossModule
        ),
        .target(name: "FlowLogTesting", dependencies: ["FlowDomain", "FlowLogMemory", "FlowLogSystem", "FlowLogStore", "FlowLogBasics"]),
        /// `flowlog serve`: the HTTP API, live subscriptions and the inspector's files, over any
        /// `LogStore` the composition root opens (it never names a backend). Scratch sessions (a
        /// dropped export) are held in FlowLogMemory's read-only log.
        .target(
            name: "FlowLogServer",
            dependencies: [
                "Deciding",
                "FlowLog",
                "FlowLogHistory",
                "FlowLogMemory",
                "FlowLogProjectors",
                .product(name: "Hummingbird", package: "hummingbird", condition: network),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: network),
                .product(name: "Logging", package: "swift-log", condition: network),
                .product(name: "Prometheus", package: "swift-prometheus", condition: network),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "FlowLogStore", "FlowLogBasics",
            ],
            exclude: ["Resources/README.md"],
            resources: [.embedInCode("Resources/inspector"), .embedInCode("Resources/openapi.json")]
        ),
        /// Spans leave the process: swift-otel's OTLP/HTTP exporter, configured from the standard
        /// `OTEL_*` environment, with a bounded flush at exit and a count of the spans dropped
        /// (docs/operations.md). Only in the whole binary; its sources are `#if Network`.
        .target(
            name: "FlowLogTelemetry",
            dependencies: [
                "FlowLogBasics",
                .product(name: "OTel", package: "swift-otel", condition: network),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: network),
                .product(name: "Logging", package: "swift-log", condition: network),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        /// The command line and the composition root. Only `Program.swift`, `StateText.swift` and
        /// `Shop/` name the shop (the program's name and subcommands, the state as text, the shop's
        /// own subcommands and trackers): a package that binds another domain compiles the other
        /// folders with a `Program.swift` and a `StateText.swift` of its own (Examples/TaskList's
        /// `tasklog`).
        .target(
            name: "FlowLogCLI",
            dependencies: [
                "Deciding",
                "FlowLog",
                "FlowLogHistory",
                "FlowLogProjectors",
                "FlowLogProjections",
                "FlowLogSystem",
                "FlowLogLMDB",
                .target(name: "FlowLogPostgres", condition: network),
                .target(name: "FlowLogHTTPClient", condition: network),
                "FlowLogSync",
                "FlowDomain",
                .target(name: "FlowLogServer", condition: network),
                .target(name: "FlowLogTelemetry", condition: network),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "FlowLogStore", "FlowLogBasics",
            ]
        ),
        .executableTarget(name: "flowlog", dependencies: ["FlowLogCLI"]),
        /// The typed client of the HTTP API: Sources/FlowLogClient/Generated is swift-openapi-generator's
        /// output for docs/openapi.json (`scripts/generate-client`; a test fails when it is stale), on
        /// swift-openapi-runtime's `ClientTransport`. On Apple platforms it brings URLSessionTransport
        /// (no NIO); elsewhere a transport is the caller's, or FlowLogClientNIO's. Nothing in the
        /// `flowlog` executable depends on it.
        .target(
            name: "FlowLogClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(
                    name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
                    condition: .when(platforms: [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS])),
            ]
        ),
        /// FlowLogClient over swift-openapi-async-http-client's `AsyncHTTPClientTransport`: only with the
        /// `Network` trait (its sources are `#if Network`), for binaries that already link NIO.
        .target(
            name: "FlowLogClientNIO",
            dependencies: [
                "FlowLogClient",
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client", condition: network),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: network),
                .product(name: "NIOCore", package: "swift-nio", condition: network),
            ]
        ),
        /// The fuzz targets: one function per parser or decoder of untrusted input, by name
        /// (docs/testing.md, "Fuzzing"). Nothing here is an entry point: `flowlog-fuzz` runs them.
        .target(
            name: "FlowLogFuzzing",
            dependencies: ["Deciding", "FlowLog", "FlowDomain", "FlowLogHistory", "FlowLogSystem", "FlowLogStore", "FlowLogBasics"]),
        /// Replays files through a fuzz target; built by `scripts/fuzz` with libFuzzer's entry points
        /// instead (`FLOWLOG_FUZZING`), in a scratch folder of its own.
        .executableTarget(name: "flowlog-fuzz", dependencies: ["FlowLogFuzzing"]),
        .executableTarget(
            name: "flowlog-bench",
            dependencies: [
                "FlowLogMemory", "FlowLogHistory", "FlowLog", "FlowLogProjections", "FlowLogLMDB", "FlowDomain", "LMDB", "FlowLogTesting",
                "FlowLogStore", "FlowLogBasics",
            ]),
        /// Every seed and every crash of `Tests/Fuzz/` run through its fuzz target: found crashes stay fixed.
        .testTarget(name: "FlowLogFuzzTests", dependencies: ["FlowLogFuzzing", "FlowDomain", "FlowLogStore", "FlowLogBasics"]),
        .testTarget(name: "FlowDomainTests", dependencies: ["FlowDomain", "FlowLogTesting"]),
        // Without the `Network` trait no test target compiles the NIO stack: what needs it is behind `#if Network`.
        .testTarget(
            name: "FlowLogTests",
            dependencies: [
                "Deciding",
                "FlowLogMemory", "FlowLogHistory", "FlowLog", "FlowLogProjections", "FlowLogLMDB", "FlowLogSync",
                .target(name: "FlowLogPostgres", condition: network),
                .target(name: "FlowLogHTTPClient", condition: network), "FlowDomain", "FlowLogTesting", "FlowLogStore", "FlowLogBasics",
            ]),
        .testTarget(
            name: "FlowLogPostgresTests",
            dependencies: [
                "FlowLogMemory", "FlowLogHistory", "FlowLogProjections", .target(name: "FlowLogPostgres", condition: network), "FlowLog",
                "FlowDomain",
                "FlowLogTesting", "FlowLogSystem", "FlowLogStore", "FlowLogBasics",
            ]),
        .testTarget(
            name: "FlowLogLMDBTests",
            dependencies: [
                "Deciding",
                "FlowLogMemory", "FlowLogHistory", "FlowLogLMDB", "FlowLogProjections", "FlowLog", "FlowDomain", "LMDB", "FlowLogTesting",
                "FlowLogSystem", "FlowLogStore", "FlowLogBasics",
            ]),
        .testTarget(
            name: "FlowLogCLITests",
            dependencies: [
                "Deciding",
                "FlowLogMemory", "FlowLogHistory", "FlowLogCLI", .product(name: "ArgumentParser", package: "swift-argument-parser"), "FlowLog",
                "FlowLogProjections", "FlowLogLMDB", "FlowDomain", "LMDB", "FlowLogTesting", "FlowLogSystem",
                // The generated client against a real `flowlog serve` (Server/GeneratedClientTests.swift).
                .target(name: "FlowLogClient", condition: network), .target(name: "FlowLogClientNIO", condition: network),
                "FlowLogStore", "FlowLogBasics",
            ]),
        /// The server's API in process: its application (the routes, middleware and log threads
        /// `flowlog serve` runs) asked through HummingbirdTesting's router client, on an LMDB log.
        /// What only the binary or real sockets show stays in FlowLogCLITests/Server.
        .testTarget(
            name: "FlowLogServerTests",
            dependencies: [
                .target(name: "FlowLogServer", condition: network), "FlowLogHistory", "FlowLogMemory", "FlowDomain",
                "FlowLogLMDB", "FlowLogTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: network),
                "FlowLogBasics",
            ]),
    ]
)

/// Every Swift target writes an existential as `any P` (`ExistentialAny`), so the cost of dynamic
/// dispatch is visible where it is paid.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("ExistentialAny")]
    // A module's imports are its own unless a file says `public import`: what a target shows its
    // users is written where it is shown. The generated client's sources choose their own imports.
    if target.name != "FlowLogClient" {
        target.swiftSettings! += [.enableUpcomingFeature("InternalImportsByDefault")]
    }
}
