import Foundation
import BenchCore
import Testing
@testable import BenchCLI

@Suite("Terminal table")
struct TerminalTableTests {
    /// Results shaped like a full run: every strategy, sizes up to
    /// 1,000,000, figures as wide as a real run prints them.
    static func fullRun() -> [CellResult] {
        var results: [CellResult] = []
        for (profile, sizes) in [("todo", [1_000, 10_000, 100_000, 1_000_000]), ("many-screens", [10_000]), ("list-edit", [10_000])] {
            for size in sizes {
                for (i, strategy) in StrategyCatalog.names.enumerated() {
                    // The widest figures a full run prints: "651.0 ms", "71165×".
                    var r = CellResult(profile: profile, strategy: strategy, entities: size, medianNs: i == 0 ? 99_100_000_000 : 651_000_000 / Double(i * 1000))
                    r.p99Ns = 912_600_000
                    r.allocationsPerDispatch = 25.14
                    r.bytesPerDispatch = 492.5 * 1024
                    r.consumerBytes = 11_600_000
                    r.callbacksPerDispatch = 1.23
                    r.evaluationsPerDispatch = 20_020
                    r.consumers = 10_010
                    results.append(r)
                }
            }
        }
        return results
    }

    func lines(_ text: String) -> [Substring] { text.split(separator: "\n", omittingEmptySubsequences: false) }

    @Test("A full run's table fits 120 columns with every column and no name cut")
    func fullRunFits() {
        let text = TerminalTable.render(Self.fullRun())
        for line in lines(text) { #expect(line.count <= 120, "\(line.count): \(line)") }
        #expect(!text.contains("…"))
        #expect(!text.contains("Left out"))
        let header = lines(text)[0]
        for title in ["profile", "N", "strategy", "median", "p99", "allocs/op", "bytes/op", "retained", "calls/op", "runs/op", "speed-up"] {
            #expect(header.contains(title), "\(title) missing from \(header)")
        }
        #expect(text.contains("full-copy-persistent"))
    }

    @Test("A profile and a size are shown once for their rows")
    func grouping() {
        let text = TerminalTable.render(Self.fullRun())
        #expect(lines(text).filter { $0.hasPrefix("todo ") }.count == 1)
        #expect(lines(text).filter { $0.hasPrefix("many-screens ") }.count == 1)
    }

    @Test("Long names are cut and columns left out rather than passing the width", arguments: [120, 80, 60])
    func narrow(width: Int) {
        var results = Self.fullRun()
        for i in results.indices {
            results[i].profile = "a-profile-with-a-very-long-name-that-no-table-can-hold-\(i % 3)"
            results[i].strategy = "strategy-\(String(repeating: "x", count: 40))-\(i % 7)"
            results[i].medianNs = 123_456_789_000
            results[i].bytesPerDispatch = 123_456_789_000
        }
        let text = TerminalTable.render(results, width: width)
        for line in lines(text) { #expect(line.count <= width, "\(line.count): \(line)") }
        #expect(text.contains("…"))
        if width < 120 { #expect(text.replacingOccurrences(of: "\n", with: " ").contains("Left out to fit \(width) columns: bytes/op")) }
    }
}
