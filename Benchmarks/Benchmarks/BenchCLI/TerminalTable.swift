import BenchCore
import TextTable

/// The results table printed at the end of a run: the figures that fit in
/// `width` columns (120 by default), drawn by TextTable; every figure is in
/// RESULTS.md.
///
/// Names too long for their column are cut with "…"; when the table still
/// does not fit, the least important columns are left out, and the legend
/// says which.
public enum TerminalTable {
    public static let defaultWidth = 120

    struct Spec: Sendable {
        var title: String
        /// Figures align right, names left.
        var rightAligned: Bool
        /// Names may be cut down to this width; figures are never cut
        /// (`nil`).
        var minimumWidth: Int?
        /// Columns with the lowest rank are left out first; `nil`: never.
        var dropRank: Int?
        var value: @Sendable (CellResult, _ reference: CellResult?) -> String
    }

    static let columns: [Spec] = [
        Spec(title: "profile", rightAligned: false, minimumWidth: 8, dropRank: nil) { r, _ in r.profile },
        Spec(title: "N", rightAligned: true, minimumWidth: nil, dropRank: nil) { r, _ in Format.grouped(r.entities) },
        Spec(title: "strategy", rightAligned: false, minimumWidth: 10, dropRank: nil) { r, _ in r.strategy },
        Spec(title: "median", rightAligned: true, minimumWidth: nil, dropRank: nil) { r, _ in Format.duration(r.medianNs) },
        Spec(title: "p99", rightAligned: true, minimumWidth: nil, dropRank: 2) { r, _ in Format.duration(r.p99Ns) },
        Spec(title: "allocs/op", rightAligned: true, minimumWidth: nil, dropRank: 6) { r, _ in Format.count(r.allocationsPerDispatch) },
        Spec(title: "bytes/op", rightAligned: true, minimumWidth: nil, dropRank: 1) { r, _ in Format.bytes(r.bytesPerDispatch) },
        Spec(title: "retained", rightAligned: true, minimumWidth: nil, dropRank: 4) { r, _ in Format.bytes(Double(r.consumerBytes)) },
        Spec(title: "calls/op", rightAligned: true, minimumWidth: nil, dropRank: 3) { r, _ in Format.count(r.callbacksPerDispatch) },
        Spec(title: "runs/op", rightAligned: true, minimumWidth: nil, dropRank: 5) { r, _ in Format.count(r.evaluationsPerDispatch) },
        Spec(title: "speed-up", rightAligned: true, minimumWidth: nil, dropRank: 7) { r, reference in
            reference.map { Format.ratio($0.medianNs / max(r.medianNs, 1)) } ?? "–"
        },
    ]

    /// The table and its legend, every line at most `width` characters.
    public static func render(_ results: [CellResult], width: Int = defaultWidth) -> String {
        guard !results.isEmpty else { return "(no results)\n" }
        // Cells, with a profile and a size shown once for their group.
        var rows: [[String]] = []
        var last: (profile: String, entities: Int)?
        for r in results {
            let reference = results.first { $0.profile == r.profile && $0.entities == r.entities && $0.strategy == StrategyCatalog.fullCopy.name }
            var row = columns.map { $0.value(r, reference) }
            if let last, last.profile == r.profile {
                row[0] = ""
                if last.entities == r.entities { row[1] = "" }
            }
            last = (r.profile, r.entities)
            rows.append(row)
        }

        var kept = Array(columns.indices)
        var widths = columns.indices.map { i in rows.reduce(columns[i].title.count) { max($0, $1[i].count) } }
        func total() -> Int { kept.reduce(0) { $0 + widths[$1] } + kept.count - 1 }
        // Cut names first, then leave out columns, least important first.
        for i in kept where total() > width {
            if let minimum = columns[i].minimumWidth {
                widths[i] = max(minimum, widths[i] - (total() - width))
            }
        }
        var dropped: [String] = []
        while total() > width, let victim = kept.filter({ columns[$0].dropRank != nil }).min(by: { columns[$0].dropRank! < columns[$1].dropRank! }) {
            kept.removeAll { $0 == victim }
            dropped.append(columns[victim].title)
        }

        let table = TextTable<[String]> { row in
            kept.map { i in
                Column(title: columns[i].title, value: row[i], width: widths[i], align: columns[i].rightAligned ? .right : .left, truncate: .tail)
            }
        }
        var out = table.string(for: rows, style: Style.simple) ?? ""
        // NB: TextTable pads the last column when it is left-aligned.
        out = out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var line = String(line)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")

        var legend = "median, p99: time per dispatch; /op: per dispatch; retained: bytes the consumers keep; calls: callbacks; "
            + "runs: selector runs; speed-up: full-copy's median over this one's."
        if !dropped.isEmpty {
            legend += " Left out to fit \(width) columns: \(dropped.joined(separator: ", "))."
        }
        legend += " Every figure is in RESULTS.md."
        return out + "\n" + wrap(legend, width: width)
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n") + "\n"
    }
}
