import BenchCore
import Foundation
import Testing
@testable import BenchCLI

@Suite("Chart")
struct ChartTests {
    static let run = RunInfo(command: "scripts/bench.sh", date: Date(timeIntervalSince1970: 1_800_000_000), machine: "Test CPU, 2 cores, 24 GiB, Linux 6",
                             runSeconds: 1, buildSeconds: nil, seed: 1, quick: false, published: false)

    @Test("Every strategy has its own marker and dash pattern, not only its colour")
    func styles() {
        let styles = StrategyCatalog.names.map { Chart.style(of: $0, among: StrategyCatalog.names) }
        #expect(Set(styles.map(\.marker)).count == styles.count)
        #expect(Set(styles.map(\.dash)).count == styles.count)
        #expect(Set(styles.map(\.color)).count == styles.count)
        // The same strategy looks the same in every chart.
        #expect(Chart.style(of: "faststore", among: ["faststore"]) == styles[3])
    }

    @Test("The chart says what is measured, that lower is better, the workload, the machine and the date")
    func labels() throws {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "valid.json")
        let results = StrategyCatalog.names.flatMap { s in
            [100, 1_000, 10_000].map { CellResult(profile: "tiny", strategy: s, entities: $0, medianNs: Double($0)) }
        }
        let svg = Chart.svg(profile: spec, results: results, run: Self.run)
        #expect(svg.contains("lower is better"))
        #expect(svg.contains("Workload: 2 consumers (2 entity); actions: update done 100%; one action at a time"))
        #expect(svg.contains("Machine: Test CPU, 2 cores, 24 GiB, Linux 6; 2027-01-15 08:00 UTC"))
        #expect(svg.components(separatedBy: "stroke-dasharray").count - 1 >= 2 * (StrategyCatalog.names.count - 1))
        for name in StrategyCatalog.names { #expect(svg.contains("data-strategy=\"\(name)\"")) }
    }
}
