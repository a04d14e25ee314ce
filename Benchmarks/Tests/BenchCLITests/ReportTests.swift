import BenchCore
import Testing
@testable import BenchCLI

@Suite("RESULTS.md table")
struct ReportTests {
    @Test("The mean is the wall-clock time per dispatch, the inverse of the throughput")
    func meanIsInverseThroughput() throws {
        var cheapMedian = CellResult(profile: "todo", strategy: "observation-lazy", entities: 1_000, medianNs: 211)
        cheapMedian.throughput = 1_000_000  // 1 µs of wall clock per dispatch
        var even = CellResult(profile: "todo", strategy: "faststore", entities: 1_000, medianNs: 1_160)
        even.throughput = 800_000  // 1.25 µs
        let table = Report.markdown([cheapMedian, even])
        let lines = table.split(separator: "\n")
        let header = lines[0].split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let column = try #require(header.firstIndex(of: "mean"))
        #expect(header[column - 1] == "p99" && header[column + 1] == "throughput")
        let cells = lines.dropFirst(2).map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(cells[0][column] == Format.duration(1_000))
        #expect(cells[1][column] == Format.duration(1_250))
        // Bold still follows the median alone.
        #expect(cells[0][header.firstIndex(of: "median")!] == "**\(Format.duration(211))**")
    }

    @Test("A cell that measured nothing shows a dash, not an infinite mean")
    func noThroughput() {
        let empty = CellResult(profile: "todo", strategy: "faststore", entities: 1_000, medianNs: 0)
        #expect(Report.mean(empty) == "–")
    }
}
