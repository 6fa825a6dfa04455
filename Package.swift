// swift-tools-version: 6.0
//
// Ember: an embedded realtime JSON database that behaves like the Firebase Realtime Database,
// with an interactive, scriptable shell. See docs/ARCHITECTURE.md for the layering: imports point
// down the module list only, and each C module is imported by exactly one Swift module.

import PackageDescription

/// SwiftNIO as the clients of other servers use it (TCP, TLS, HTTP/1.1): EmberNetworkShared's
/// requests and EmberRemote's WebSocket.
let nioClient: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
]

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // Release builds skip the runtime's dynamic exclusivity checks (as the standard library is
    // built): about 3% of an acknowledged write (`perf`: swift_beginAccess and AccessSet). Debug
    // builds, and so every test, keep them.
    .unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"], .when(configuration: .release)),
    // Release builds reach generic types' metadata through accessor functions, not by mangled
    // name: instantiating `[ClientName: Database]` by name made the runtime look its key's
    // `Hashable` conformance up by scanning all 10,000 conformance records of the binary, about
    // 620,000 instructions each time, ten times before the first prompt (start-up 12.2 M → 7.1 M
    // instructions; BENCHMARKS.md, "Start-up").
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release)),
]

/// The release `ember`'s link: a position-dependent executable (the loader relocated 138,000
/// pointers of Swift metadata at every start, 1.3–1.6 ms of a 4 ms start-up; what this gives up
/// is said in docs/ARCHITECTURE.md, "The release binary"), exporting no symbols (the runtime's
/// backtracer looked its own path up with `dladdr`, a walk of the 49,000 symbols exported).
let emberLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-no-pie", "-Xlinker", "--no-export-dynamic"], .when(configuration: .release)),
]

let package = Package(
    name: "Ember",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ember", targets: ["ember"]),
        .library(name: "EmberCore", targets: ["EmberCore"]),
        .library(name: "EmberEngine", targets: ["EmberEngine"]),
        .library(name: "EmberClient", targets: ["EmberClient"]),
        .library(name: "EmberRules", targets: ["EmberRules"]),
        .library(name: "EmberServer", targets: ["EmberServer"]),
        .library(name: "EmberInstance", targets: ["EmberInstance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // MARK: C entry points
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .target(
            name: "CLuaSupport",
            dependencies: ["CLua", "CInterrupt"]
        ),
        .target(name: "CInterrupt"),
        // Linux's epoll, for ember-bench's fan-out readers.
        .systemLibrary(name: "CEpoll"),
        // glibc's malloc_trim, to hand memory freed after a large load back to the system.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),

        // MARK: Swift modules, bottom-up
        .target(
            name: "EmberCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto"), .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberEngine",
            dependencies: ["EmberCore", "CInterrupt", .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberSync",
            dependencies: ["EmberCore", .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberStorage",
            dependencies: [
                "EmberCore", "CMalloc", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "EmberWire", dependencies: ["EmberCore", "EmberEngine"], swiftSettings: swiftSettings),
        .target(name: "EmberRules", dependencies: ["EmberCore"], swiftSettings: swiftSettings),
        .target(
            name: "EmberServer",
            dependencies: ["EmberCore", "EmberWire", "EmberStorage", "EmberRules"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberClient",
            dependencies: [
                "EmberCore", "EmberEngine", "EmberSync", "EmberWire", "EmberStorage",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberInstance",
            dependencies: ["EmberCore", "EmberEngine", "EmberWire", "EmberStorage", "EmberRules", "EmberServer", "EmberClient"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberNetworkShared",
            dependencies: ["EmberCore", "EmberWire"] + nioClient,
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberRemote",
            dependencies: [
                "EmberCore", "EmberEngine", "EmberWire", "EmberInstance", "EmberNetworkShared",
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ] + nioClient,
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberNetwork",
            dependencies: [
                "EmberCore", "EmberEngine", "EmberWire", "EmberStorage", "EmberRules", "EmberServer", "EmberInstance", "EmberNetworkShared",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "EmberQL", dependencies: ["EmberCore"], swiftSettings: swiftSettings),
        .target(
            name: "EmberLua",
            dependencies: [
                "CLua", "CLuaSupport", "EmberCore", "EmberEngine", "EmberSync", "EmberWire", "EmberStorage", "EmberRules", "EmberServer", "EmberClient",
                "EmberInstance",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberShell",
            dependencies: [
                "CEditLine", "EmberCore", "EmberEngine", "EmberSync", "EmberStorage", "EmberWire", "EmberRules", "EmberServer",
                "EmberClient", "EmberInstance", "EmberQL", "EmberLua", "EmberNetwork", "EmberNetworkShared", "EmberRemote",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ember",
            dependencies: [
                "EmberShell", "EmberNetwork", "EmberNetworkShared",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: emberLinkerSettings
        ),
        .executableTarget(
            name: "ember-harness",
            dependencies: [
                "EmberCore", "EmberSync", "EmberStorage", "EmberServer", "EmberClient", "EmberInstance", "EmberTestSupport",
            ],
            path: "Sources/EmberHarness",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ember-bench",
            dependencies: [
                "EmberCore", "EmberSync", "EmberStorage", "EmberRules", "EmberServer", "EmberClient", "EmberInstance",
                "EmberTestSupport", "EmberWire", "CEpoll", .product(name: "GRDB", package: "GRDB.swift"),
                // The floor server (`ember-bench network-floor`): the network stack alone.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/EmberBench",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmberTestSupport",
            dependencies: ["EmberCore", "EmberSync"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests mirror sources
        .testTarget(
            name: "EmberCoreTests",
            dependencies: ["EmberCore", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberEngineTests",
            dependencies: ["EmberEngine", "EmberCore", "EmberWire", "EmberClient", "EmberInstance", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberRulesTests",
            dependencies: ["EmberCore", "EmberRules", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberSyncTests",
            dependencies: ["EmberCore", "EmberSync", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberWireTests",
            dependencies: ["EmberEngine", "EmberCore", "EmberWire", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberInstanceTests",
            dependencies: [
                "EmberEngine", "EmberCore", "EmberWire", "EmberStorage", "EmberServer", "EmberClient", "EmberInstance", "EmberTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberServerTests",
            dependencies: ["EmberEngine", 
                "EmberCore", "EmberWire", "EmberStorage", "EmberRules", "EmberServer", "EmberInstance", "EmberTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberClientTests",
            dependencies: ["EmberEngine", 
                "EmberCore", "EmberSync", "EmberWire", "EmberRules", "EmberServer", "EmberStorage", "EmberClient", "EmberInstance",
                "EmberTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["FIREBASE-TESTS.md"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberLuaTests", dependencies: ["EmberEngine", "EmberLua", "EmberCore", "EmberWire", "EmberRules", "EmberServer", "EmberClient", "EmberInstance", "EmberTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "EmberQLTests", dependencies: ["EmberQL", "EmberCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "EmberNetworkTests",
            dependencies: ["EmberNetwork", "EmberNetworkShared", "EmberCore", "EmberWire", "EmberTestSupport"],
            exclude: ["Scenarios"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberRemoteTests",
            dependencies: ["EmberRemote", "EmberNetworkShared", "EmberCore", "EmberEngine", "EmberWire", "EmberInstance", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberNetworkSharedTests",
            dependencies: ["EmberNetworkShared", "EmberCore", "EmberWire", "EmberTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberShellTests",
            dependencies: ["EmberEngine", "EmberShell", "EmberCore", "EmberRules", "EmberInstance", "EmberQL", "EmberTestSupport"],
            exclude: ["Transcripts"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmberStorageTests",
            dependencies: ["EmberCore", "EmberStorage", "EmberTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
