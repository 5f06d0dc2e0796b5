// swift-tools-version:6.0
import PackageDescription

/// FlowLog's targets follow the layers of DESIGN.md; dependency arrows point inward only:
/// `flowlog` (composition root) → `FlowLog` (application) → `FlowDomain` (pure) and `LMDB` → `CLMDB`.
let package = Package(
    name: "FlowLog",
    products: [
        .executable(name: "flowlog", targets: ["flowlog"]),
        .library(name: "FlowDomain", targets: ["FlowDomain"]),
        .library(name: "FlowLog", targets: ["FlowLog"]),
        .library(name: "FlowLogTesting", targets: ["FlowLogTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        .target(name: "FlowDomain"),
        .target(name: "FlowLog", dependencies: ["FlowDomain", "LMDB"]),
        .target(name: "FlowLogTesting", dependencies: ["FlowDomain", "FlowLog"]),
        .executableTarget(
            name: "flowlog",
            dependencies: [
                "FlowLog",
                "FlowDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "flowlog-bench", dependencies: ["FlowLog", "FlowDomain", "LMDB"]),
        .testTarget(name: "FlowDomainTests", dependencies: ["FlowDomain", "FlowLogTesting"]),
        .testTarget(name: "FlowLogTests", dependencies: ["FlowLog", "FlowDomain", "LMDB", "FlowLogTesting"]),
        .testTarget(name: "FlowLogCLITests", dependencies: ["FlowLog", "FlowDomain", "LMDB", "FlowLogTesting"]),
    ]
)
