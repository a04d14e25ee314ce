import Foundation

/// Compiles Markdown snippets against the package's modules as this test
/// run built them: the compiler and the search paths of the product
/// modules' own compile commands (read from SwiftPM's build manifest,
/// `<scratch>/<configuration>.yaml`), so a snippet sees exactly what a
/// client of the products sees, and no `package` symbol.
struct SnippetCompiler: Sendable {
    let swiftc: URL
    let flags: [String]
    let scratch: URL

    /// The modules a client imports: the products'.
    static let productModules = ["FastStore", "FastStoreReSwift", "FastStoreTesting", "FastStorePersistence"]

    /// The compiler of the running test build, or why there is none.
    static let current: Result<SnippetCompiler, MarkdownSnippetError> = Result { try SnippetCompiler() }
        .mapError { $0 as? MarkdownSnippetError ?? MarkdownSnippetError(description: "\($0)") }

    private init() throws {
        // NB: the test binary (an .xctest bundle on Apple platforms, an
        // executable on Linux) sits in the build's bin directory, beside
        // `Modules/`.
        let binaries = Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
            + [Bundle.main.executableURL].compactMap { $0 }
        guard let bin = binaries.map({ $0.deletingLastPathComponent() })
            .first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Modules").path) }) else {
            throw MarkdownSnippetError(description: "no Modules directory beside the test binary (\(binaries))")
        }
        let manifest = bin.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(bin.lastPathComponent + ".yaml")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
            throw MarkdownSnippetError(description: "no build manifest at \(manifest.path)")
        }
        var compiler: String?
        var flags: [String] = []
        var found: Set<String> = []
        for line in text.split(separator: "\n") {
            guard let module = Self.productModules.first(where: { line.contains("\"-module-name\",\"\($0)\"") }),
                  let start = line.range(of: "args: ")?.upperBound else { continue }
            let args = try JSONDecoder().decode([String].self, from: Data(line[start...].utf8))
            found.insert(module)
            compiler = compiler ?? args.first
            var i = 1
            while i + 1 < args.count {
                // NB: search paths, target and SDK only: no `-D`, no
                // `-package-name`, no `-enable-testing`.
                if ["-I", "-F", "-Xcc", "-target", "-sdk", "-module-cache-path"].contains(args[i]) {
                    let pair = [args[i], args[i + 1]]
                    if args[i] == "-Xcc" || !stride(from: 0, to: flags.count, by: 2).contains(where: { Array(flags[$0...$0 + 1]) == pair }) {
                        flags += pair
                    }
                    i += 2
                } else {
                    i += 1
                }
            }
        }
        guard let compiler, found.count == Self.productModules.count else {
            throw MarkdownSnippetError(description: "\(manifest.path) holds no compile command for \(Set(Self.productModules).subtracting(found).sorted())")
        }
        swiftc = URL(fileURLWithPath: compiler)
        // NB: in the build directory, replaced at each run.
        scratch = bin.appendingPathComponent("snippet-check")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        #if canImport(SwiftUI)
        self.flags = flags
        #else
        let standIn = scratch.appendingPathComponent("SwiftUI")
        try FileManager.default.createDirectory(at: standIn, withIntermediateDirectories: true)
        let source = standIn.appendingPathComponent("SwiftUI.swift")
        try Self.swiftUIStandIn.write(to: source, atomically: true, encoding: .utf8)
        let target = flags.indices.filter { flags[$0] == "-target" }.flatMap { flags[$0...$0 + 1] }
        let (status, output) = try Self.run(swiftc, [
            "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", "SwiftUI",
            "-emit-module-path", standIn.appendingPathComponent("SwiftUI.swiftmodule").path, source.path,
        ] + target)
        guard status == 0 else { throw MarkdownSnippetError(description: "the SwiftUI stand-in does not compile:\n\(output)") }
        self.flags = flags + ["-I", standIn.path]
        #endif
    }

    /// Where SwiftUI does not exist (Linux): a stand-in for the part of it
    /// the README's views use, so that they are type-checked. It checks
    /// that a view's body is a `View` of what the store gives; not how
    /// SwiftUI lays it out.
    static let swiftUIStandIn = """
        @MainActor @preconcurrency public protocol View {
            associatedtype Body: View
            @ViewBuilder var body: Body { get }
        }
        extension Never: View {
            public var body: Never { fatalError() }
        }
        @resultBuilder public enum ViewBuilder {
            public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
        }
        public struct Text: View {
            public init(_ content: some StringProtocol) {}
            public var body: Never { fatalError() }
        }

        """

    /// Compiles `snippet` (through SIL: the type checker and the mandatory
    /// diagnostics, data races included; no code generated), warnings as
    /// errors. A manifest is evaluated by `swift package dump-package`
    /// instead (its dependencies are not resolved).
    /// - Returns: the compiler's output when it fails, else nil.
    func failure(of snippet: MarkdownSnippet, among snippets: [MarkdownSnippet], path: String) throws -> String? {
        let directory = scratch.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        if snippet.isManifest {
            let manifest = directory.appendingPathComponent("Package.swift")
            try (snippet.code.joined(separator: "\n") + "\n").write(to: manifest, atomically: true, encoding: .utf8)
            let swift = swiftc.deletingLastPathComponent().appendingPathComponent("swift")
            let (status, output) = try Self.run(swift, ["package", "dump-package", "--package-path", directory.path])
            return status == 0 ? nil : "\(path):\(snippet.firstLine): the manifest does not load:\n\(output)"
        }
        let (main, context) = snippet.program(among: snippets, path: path)
        var files = [directory.appendingPathComponent("main.swift")]
        try main.write(to: files[0], atomically: true, encoding: .utf8)
        if !context.isEmpty {
            files.append(directory.appendingPathComponent("context.swift"))
            try context.write(to: files[1], atomically: true, encoding: .utf8)
        }
        let (status, output) = try Self.run(swiftc, [
            "-emit-sil", "-wmo", "-o", directory.appendingPathComponent("snippet.sil").path,
            "-swift-version", "6", "-warnings-as-errors", "-module-name", "Snippet",
        ] + flags + files.map(\.path))
        return status == 0 ? nil : output
    }

    /// Runs `tool`, its output and errors read together.
    private static func run(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // NB: read before waiting: a full pipe would block the tool.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
