import Foundation

/// A ```swift block of a Markdown file, as `ReadmeCodeTests` compiles it.
///
/// A block stands alone unless an HTML comment right before it names its
/// context:
///
///     <!-- snippet persistence, after quick-start
///     let url = URL(fileURLWithPath: "todos.sqlite")
///     -->
///
/// - `snippet NAME` names the block, for a later block's `after`.
/// - `after OTHER` continues OTHER's file: OTHER's top-level declarations
///   (imports, types, functions, extensions; not its statements), and those
///   it continues in turn, come before the block.
/// - The comment's other lines are code the reader has elsewhere in the app
///   (the values a fragment names), compiled in a second file. A block
///   continuing another has that one's too.
///
/// A block whose first line is `// swift-tools-version:` is a package
/// manifest.
struct MarkdownSnippet: Sendable, CustomStringConvertible {
    var name: String?
    var after: String?
    /// The comment's code lines, and the file line of the first.
    var context: [String] = []
    var contextLine = 0
    /// The block's lines, and the file line of the first.
    var code: [String] = []
    var firstLine = 0

    var isManifest: Bool { code.first?.hasPrefix("// swift-tools-version:") ?? false }

    var description: String { "line \(firstLine)" + (name.map { " (\($0))" } ?? "") }
}

struct MarkdownSnippetError: Error, CustomStringConvertible {
    var description: String
}

extension MarkdownSnippet {
    /// Every ```swift block of `text`, in order, with its comment's context.
    /// - Throws: a comment not followed by a ```swift block, an unclosed
    ///   block or comment, a name given twice, or an `after` that names no
    ///   earlier block.
    static func parse(_ text: String) throws -> [MarkdownSnippet] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var snippets: [MarkdownSnippet] = []
        var pending: MarkdownSnippet?
        var otherFence = false
        var i = 0
        while i < lines.count {
            let line = lines[i]
            let number = i + 1
            if otherFence {
                if isClosingFence(line) { otherFence = false }
                i += 1
                continue
            }
            if line.hasPrefix("<!-- snippet") {
                var header = String(line.dropFirst("<!-- snippet".count)).trimmingCharacters(in: .whitespaces)
                var closed = false
                if header.hasSuffix("-->") { header.removeLast(3); closed = true }
                var snippet = try parseHeader(header, line: number)
                i += 1
                snippet.contextLine = i + 1
                while !closed {
                    guard i < lines.count else { throw MarkdownSnippetError(description: "line \(number): the snippet comment is not closed") }
                    if lines[i].trimmingCharacters(in: .whitespaces) == "-->" { closed = true } else { snippet.context.append(lines[i]) }
                    i += 1
                }
                guard i < lines.count, isSwiftFence(lines[i]) else {
                    throw MarkdownSnippetError(description: "line \(number): a snippet comment must come right before a ```swift block")
                }
                pending = snippet
                continue
            }
            if isSwiftFence(line) {
                var snippet = pending ?? MarkdownSnippet()
                pending = nil
                snippet.firstLine = number + 1
                i += 1
                while i < lines.count, !isClosingFence(lines[i]) {
                    snippet.code.append(lines[i])
                    i += 1
                }
                guard i < lines.count else { throw MarkdownSnippetError(description: "line \(number): the ```swift block is not closed") }
                if let name = snippet.name, snippets.contains(where: { $0.name == name }) {
                    throw MarkdownSnippetError(description: "line \(number): a second snippet named \(name)")
                }
                if let after = snippet.after, !snippets.contains(where: { $0.name == after }) {
                    throw MarkdownSnippetError(description: "line \(number): no snippet named \(after) before this one")
                }
                snippets.append(snippet)
            } else if line.hasPrefix("```") {
                otherFence = true
            }
            i += 1
        }
        return snippets
    }

    /// A fence that opens a Swift block: "```swift", "```Swift title", ….
    private static func isSwiftFence(_ line: String) -> Bool {
        line.hasPrefix("```") && line.dropFirst(3).split(separator: " ").first?.lowercased() == "swift"
    }

    private static func isClosingFence(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces) == "```"
    }

    /// `NAME` or `NAME, after OTHER`.
    private static func parseHeader(_ text: String, line: Int) throws -> MarkdownSnippet {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let name = parts.first, !name.isEmpty, !name.contains(" "), parts.count <= 2 else {
            throw MarkdownSnippetError(description: "line \(line): expected `<!-- snippet NAME` or `<!-- snippet NAME, after OTHER`")
        }
        var snippet = MarkdownSnippet(name: name)
        if parts.count == 2 {
            let words = parts[1].split(separator: " ")
            guard words.count == 2, words[0] == "after" else {
                throw MarkdownSnippetError(description: "line \(line): expected `after OTHER`, not `\(parts[1])`")
            }
            snippet.after = String(words[1])
        }
        return snippet
    }

    /// The block's top-level declarations, each with the file line of its
    /// first line. A top-level item starts at a line that begins in column
    /// 0 (not with a closing bracket or a `.`); it is a declaration when its
    /// first word, after attributes and modifiers, declares one.
    var declarations: [(line: Int, lines: [String])] {
        var items: [(line: Int, lines: [String], isDeclaration: Bool)] = []
        for (offset, line) in code.enumerated() {
            let startsItem = line.first.map { !$0.isWhitespace && !")]}.".contains($0) } ?? false
            if startsItem || items.isEmpty {
                items.append((firstLine + offset, [line], Self.declares(line)))
            } else {
                items[items.count - 1].lines.append(line)
            }
        }
        return items.filter(\.isDeclaration).map { ($0.line, $0.lines) }
    }

    private static let declarationKeywords: Set<Substring> = [
        "import", "struct", "enum", "class", "actor", "protocol", "extension", "func", "typealias",
    ]
    private static let modifiers: Set<Substring> = [
        "public", "package", "internal", "fileprivate", "private", "final", "open", "indirect", "nonisolated",
    ]

    private static func declares(_ line: String) -> Bool {
        var inAttribute = false
        for word in line.split(separator: " ") {
            if inAttribute {
                if word.contains(")") { inAttribute = false }
                continue
            }
            if word.hasPrefix("@") {
                inAttribute = word.contains("(") && !word.contains(")")
                continue
            }
            if modifiers.contains(word) { continue }
            return declarationKeywords.contains(word)
        }
        return false
    }

    /// The program that compiles this block as the Markdown file has it:
    /// `main` holds the declarations of the blocks it continues and the
    /// block itself; `context` the comments' code. Both point their
    /// diagnostics at `path`'s lines.
    func program(among snippets: [MarkdownSnippet], path: String) -> (main: String, context: String) {
        var chain: [MarkdownSnippet] = []
        var next = after
        while let name = next, let earlier = snippets.first(where: { $0.name == name }) {
            chain.insert(earlier, at: 0)
            next = earlier.after
        }
        let file = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        func located(_ line: Int, _ lines: [String]) -> String {
            "#sourceLocation(file: \"\(file)\", line: \(line))\n" + lines.joined(separator: "\n") + "\n#sourceLocation()\n"
        }
        var main = ""
        for earlier in chain {
            for item in earlier.declarations { main += located(item.line, item.lines) }
        }
        main += located(firstLine, code)
        var context = ""
        for snippet in chain + [self] where !snippet.context.isEmpty {
            context += located(snippet.contextLine, snippet.context)
        }
        return (main, context)
    }
}
