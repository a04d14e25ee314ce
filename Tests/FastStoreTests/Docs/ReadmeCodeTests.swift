import Foundation
import Testing

// Every ```swift block of README.md, read from the README at run time and
// compiled against the products as this build made them
// (`MarkdownSnippet`, `SnippetCompiler`): the README's code compiles as
// written. A fragment's context is an HTML comment right before it, in the
// README's source. SwiftUI views are type-checked against a stand-in
// SwiftUI where SwiftUI does not exist.

private let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let readme = root.appendingPathComponent("README.md")

private func readmeSnippets() throws -> [MarkdownSnippet] {
    try MarkdownSnippet.parse(String(contentsOf: readme, encoding: .utf8))
}

/// Compiling needs the build's own compiler and modules, located as
/// SwiftPM lays them out on Linux (CI's platform); elsewhere the
/// compiling tests do not run.
private let compiles: Bool = {
    #if os(Linux)
    true
    #else
    false
    #endif
}()

@Suite struct ReadmeCodeTests {
    @Test(.enabled(if: compiles, "compiled on Linux"), arguments: try readmeSnippets())
    func theReadmeBlockCompiles(_ snippet: MarkdownSnippet) throws {
        let compiler = try SnippetCompiler.current.get()
        let snippets = try readmeSnippets()
        if let failure = try compiler.failure(of: snippet, among: snippets, path: readme.path) {
            Issue.record(Comment(rawValue: failure))
        }
    }

    @Test func theReadmeHasSwiftBlocksAndAManifest() throws {
        let snippets = try readmeSnippets()
        #expect(snippets.contains { !$0.isManifest && $0.code.contains("import FastStore") })
        #expect(snippets.contains { $0.isManifest })
    }

    @Test(.enabled(if: compiles, "compiled on Linux"))
    func aBlockGetsTheDeclarationsAndContextOfTheOneItContinuesNotItsStatements() throws {
        let compiler = try SnippetCompiler.current.get()
        func failure(_ use: String) throws -> String? {
            let markdown = """
                # Fixture

                <!-- snippet model
                let seed = 1
                -->
                ```swift
                import FastStore
                struct Counter { var value = 0 }
                let counter = Counter()
                ```

                <!-- snippet use, after model -->
                ```swift
                \(use)
                ```
                """
            let snippets = try MarkdownSnippet.parse(markdown)
            try #require(snippets.count == 2)
            return try compiler.failure(of: snippets[1], among: snippets, path: "FIXTURE.md")
        }
        let compiled = try failure("let total: Int = Versioned(Counter()).value.value + seed")
        #expect(compiled == nil, "the earlier block's imports and types and its comment's code are there: \(compiled ?? "")")
        let wrongType = try #require(try failure("let total: String = Counter().value + seed"))
        #expect(wrongType.contains("FIXTURE.md:14:"), "the diagnostic names the Markdown line: \(wrongType)")
        let statement = try #require(try failure("let total = counter.value"))
        #expect(statement.contains("counter"), "the earlier block's statements are not there: \(statement)")
    }

    @Test func theDeclarationsOfABlockAreItsImportsTypesAndFunctions() throws {
        let snippets = try MarkdownSnippet.parse("""
            ```swift
            import FastStore

            @MainActor final class Screen {
                let id = 1
            }
            let store = Store(state: 0) { state, _ in
                state += 1
            }
            @available(macOS 14, *) func render() {}
            store.dispatch(())
            extension Screen {}
            ```
            """)
        let declarations = try #require(snippets.first).declarations
        #expect(declarations.map(\.line) == [2, 4, 10, 12])
        #expect(declarations.map { $0.lines.count } == [2, 3, 1, 1])
    }

    @Test func aSwiftFenceIsFoundWhateverItsCaseAndTrailingWords() throws {
        let snippets = try MarkdownSnippet.parse("```sh\nls\n```\n```Swift \nlet a = 1\n``` \n```swift title\nlet b = 2\n```\n")
        #expect(snippets.map(\.code) == [["let a = 1"], ["let b = 2"]])
    }

    @Test func aSnippetCommentMustNameAnEarlierBlockAndPrecedeASwiftBlock() {
        #expect(throws: MarkdownSnippetError.self) {
            try MarkdownSnippet.parse("<!-- snippet a -->\n\n```swift\nlet x = 1\n```\n")
        }
        #expect(throws: MarkdownSnippetError.self) {
            try MarkdownSnippet.parse("<!-- snippet b, after a -->\n```swift\nlet x = 1\n```\n")
        }
        #expect(throws: MarkdownSnippetError.self) {
            try MarkdownSnippet.parse("```swift\nlet x = 1\n")
        }
    }
}
