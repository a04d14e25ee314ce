import Foundation
import Testing
@testable import BenchCLI

/// `scripts/bench.sh --help` prints docs/benchmarks/fsbench-help.txt without
/// building anything; this keeps that copy equal to what the command line
/// says. After changing an option: `FSBENCH_UPDATE_HELP=1 swift test
/// --filter HelpTextTests` from Benchmarks/ rewrites it.
@Suite("Help text")
struct HelpTextTests {
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/benchmarks/fsbench-help.txt")

    @Test("docs/benchmarks/fsbench-help.txt is fsbench's help")
    func helpFile() throws {
        let help = FSBenchCommand.helpMessage(columns: 100) + "\n"
        if ProcessInfo.processInfo.environment["FSBENCH_UPDATE_HELP"] == "1" {
            try help.write(to: Self.file, atomically: true, encoding: .utf8)
        }
        let kept = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(kept == help, "docs/benchmarks/fsbench-help.txt is out of date: FSBENCH_UPDATE_HELP=1 swift test --filter HelpTextTests")
    }
}
