// swift-tools-version: 6.2
import PackageDescription

/// What a new Xcode 26 app target sets: main-actor isolation by default, and the features of
/// "Approachable Concurrency" that Swift 6 mode does not already enable.
let appTargetSettings: [SwiftSetting] = [
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

let package = Package(
    name: "ReduxSwift",
    platforms: [.macOS(.v11), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "ReduxSwift", targets: ["ReduxSwift"]),
        // For test targets only: `TestStore`, which reports failures to Swift Testing or XCTest.
        .library(name: "ReduxSwiftTesting", targets: ["ReduxSwiftTesting"]),
        .executable(name: "redux-scaffold", targets: ["ReduxScaffold"]),
        .executable(name: "todos", targets: ["todos"]),
    ],
    targets: [
        // The privacy manifest declares why the library calls APIs on Apple's required-reason list.
        .target(name: "ReduxSwift", resources: [.copy("PrivacyInfo.xcprivacy")]),
        .target(name: "ReduxSwiftTesting", dependencies: ["ReduxSwift"]),
        // `swift run -c release ReduxSwiftBenchmarks`: figures against baselines measured in the same run.
        .executableTarget(name: "ReduxSwiftBenchmarks", dependencies: ["ReduxSwift", "CountingAllocator"]),
        // For the benchmarks only: counts allocations and mutex acquisitions (glibc; elsewhere it
        // says it cannot).
        .target(name: "CountingAllocator"),
        // `swift run -c release ReduxSwiftCrashTest`: kills a saving process and checks its archive loads.
        .executableTarget(name: "ReduxSwiftCrashTest", dependencies: ["ReduxSwift"]),
        // `swift run todos`: the example app, a todo list kept between runs.
        .executableTarget(name: "todos", dependencies: ["ReduxSwift"]),
        // `swift run redux-scaffold --name Counter --output Sources/App`: renders Templates/ for a feature.
        .executableTarget(name: "ReduxScaffold"),
        .testTarget(name: "ReduxSwiftTests", dependencies: ["ReduxSwift"]),
        .testTarget(name: "ReduxScaffoldTests", dependencies: ["ReduxScaffold"]),
        // Drives the `todos` executable as a user would; depending on it builds it first.
        // `Fixtures/` holds data files earlier releases wrote, which the tests load by path.
        .testTarget(name: "TodosTests", dependencies: ["todos"], exclude: ["Fixtures"]),
        // Uses only the public API (no `@testable import`), so it proves the API compiles from outside.
        .testTarget(name: "ReduxSwiftAPITests", dependencies: ["ReduxSwift"]),
        .testTarget(name: "ReduxSwiftTestingTests", dependencies: ["ReduxSwiftTesting"]),
        // App code compiled as a new Xcode 26 app target compiles it: main-actor by default, with
        // "Approachable Concurrency". Its other three features (DisableOutwardActorInference,
        // GlobalActorIsolatedTypesUsability, InferSendableFromCaptures) are part of Swift 6 mode;
        // naming them again is a warning.
        .testTarget(
            name: "MainActorAppTests",
            dependencies: ["ReduxSwift", "ReduxSwiftTesting"],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]),
        // The code blocks of the README and the DocC articles, compiled and run; each target checks
        // that the documents still show exactly its code (see DocBlocks).
        .target(name: "DocSnippetChecking", path: "Tests/DocSnippets/Checking"),
        .target(name: "DocSnippetApp", dependencies: ["ReduxSwift"], path: "Tests/DocSnippets/App"),
        .testTarget(
            name: "GettingStartedSnippets",
            dependencies: ["ReduxSwift", "ReduxSwiftTesting", "DocSnippetChecking"],
            path: "Tests/DocSnippets/GettingStarted"),
        .testTarget(
            name: "ArticleSnippets",
            dependencies: ["ReduxSwift", "DocSnippetChecking", "DocSnippetApp"],
            path: "Tests/DocSnippets/Articles",
            exclude: ["Fixtures"]),
        // The same code again, from the same files (Tests/DocSnippets/MainActor links to them),
        // compiled as a new Xcode 26 app target compiles it: the app's code in the same module as
        // the snippets, as in an app.
        .testTarget(
            name: "GettingStartedSnippetsMainActor",
            dependencies: ["ReduxSwift", "ReduxSwiftTesting", "DocSnippetChecking"],
            path: "Tests/DocSnippets/MainActor/GettingStarted", swiftSettings: appTargetSettings),
        .testTarget(
            name: "ArticleSnippetsMainActor",
            dependencies: ["ReduxSwift", "DocSnippetChecking"],
            path: "Tests/DocSnippets/MainActor/Articles", exclude: ["Fixtures"],
            swiftSettings: appTargetSettings + [.define("MAIN_ACTOR_SNIPPETS")]),
        .testTarget(
            name: "ReadmeSnippetsMainActor",
            dependencies: [
                "ReduxSwift", "ReduxSwiftTesting", "DocSnippetChecking",
            ],
            path: "Tests/DocSnippets/MainActor/README",
            swiftSettings: appTargetSettings + [.define("MAIN_ACTOR_SNIPPETS")]),
        .testTarget(
            name: "ReadmeSnippets",
            dependencies: ["ReduxSwift", "ReduxSwiftTesting", "DocSnippetChecking", "DocSnippetApp"],
            path: "Tests/DocSnippets/README"),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        // Every existential is spelled `any P`, which makes their cost visible at each use.
        .enableUpcomingFeature("ExistentialAny")
    ])
    target.swiftSettings = settings
}
