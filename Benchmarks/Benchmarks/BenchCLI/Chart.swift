import BenchCore
import Foundation

/// A log-log line chart of time per dispatch (median) against the number of
/// entities, one line per strategy, written as plain SVG.
///
/// Each strategy has its own colour, marker and dash pattern, so that the
/// lines stay apart in grey print and for readers who do not tell the
/// colours apart. The header says what is measured and that lower is
/// better; the footer, the workload, the machine and the date.
public enum Chart {
    /// How one strategy's line is drawn.
    public struct LineStyle: Equatable, Sendable {
        public var color: String
        public var marker: Marker
        /// An SVG `stroke-dasharray`, empty for a solid line.
        public var dash: String
    }

    public enum Marker: String, CaseIterable, Sendable {
        case circle, square, triangle, diamond, triangleDown, cross, plus, ring, squareOpen, diamondFilled, triangleOpen
    }

    static let colors = ["#d62728", "#ff7f0e", "#9467bd", "#2ca02c", "#8c564b", "#1f77b4", "#17becf", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79"]
    static let dashes = ["", "8 4", "2 3", "8 3 2 3", "12 4", "4 4", "1 3", "6 2 2 2 2 2", "10 3 1 3", "3 2 3 6", "2 2 8 2"]

    /// The style of `strategy`: fixed by its place in the catalog, so that a
    /// strategy looks the same in every chart; others follow in `order`.
    public static func style(of strategy: String, among order: [String]) -> LineStyle {
        let index: Int
        if let known = StrategyCatalog.names.firstIndex(of: strategy) {
            index = known
        } else {
            let others = order.filter { !StrategyCatalog.names.contains($0) }
            index = StrategyCatalog.names.count + (others.firstIndex(of: strategy) ?? 0)
        }
        let markers = Marker.allCases
        return LineStyle(color: colors[index % colors.count], marker: markers[index % markers.count], dash: dashes[index % dashes.count])
    }

    public static func svg(profile: ProfileSpec, results: [CellResult], run: RunInfo) -> String {
        // Footer: what ran, where and when, in lines that fit the width.
        let footer = [
            "Workload: \(profile.workloadSummary)",
            "Machine: \(run.machine); \(run.day)\(run.quick ? "; quick mode" : "")",
        ].flatMap { TerminalTable.wrap($0, width: 118).split(separator: "\n").map(String.init) }
        let width = 780.0, plotH = 342.0
        let left = 80.0, right = 190.0, top = 62.0, bottom = 62.0 + 16 * Double(footer.count)
        let height = top + plotH + bottom
        let plotW = width - left - right
        let xs = results.map { Double($0.entities) }
        let ys = results.map { max($0.medianNs, 1) }
        let xMin = floor(log10(xs.min() ?? 1)), xMax = max(ceil(log10(xs.max() ?? 10)), xMin + 1)
        let yMin = floor(log10(ys.min() ?? 1)), yMax = max(ceil(log10(ys.max() ?? 10)), yMin + 1)
        func px(_ x: Double) -> Double { left + (log10(x) - xMin) / (xMax - xMin) * plotW }
        func py(_ y: Double) -> Double { top + plotH - (log10(y) - yMin) / (yMax - yMin) * plotH }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var s = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(f(left + plotW / 2))" y="22" text-anchor="middle" font-size="15" font-weight="bold">\(escape(profile.name)): time per dispatch against state size</text>
        <text x="\(f(left + plotW / 2))" y="42" text-anchor="middle" font-size="12">median time per dispatch, log-log scales: lower is better</text>

        """
        // Grid and axis labels, one line per decade.
        for e in stride(from: xMin, through: xMax, by: 1) {
            let x = px(pow(10, e))
            s += "<line x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + plotH))\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(f(x))\" y=\"\(f(top + plotH + 18))\" text-anchor=\"middle\">\(Format.grouped(Int(pow(10, e))))</text>\n"
        }
        for e in stride(from: yMin, through: yMax, by: 1) {
            let y = py(pow(10, e))
            s += "<line x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y))\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(f(left - 8))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(decade(e))</text>\n"
        }
        s += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#333\"/>\n"
        s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(top + plotH + 38))\" text-anchor=\"middle\">entities in the state</text>\n"
        s += "<text x=\"18\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(f(top + plotH / 2)))\">time per dispatch (median, lower is better)</text>\n"

        var strategies: [String] = []
        for r in results where !strategies.contains(r.strategy) { strategies.append(r.strategy) }
        for (i, name) in strategies.enumerated() {
            let style = style(of: name, among: strategies)
            let dash = style.dash.isEmpty ? "" : " stroke-dasharray=\"\(style.dash)\""
            let points = results.filter { $0.strategy == name }.sorted { $0.entities < $1.entities }
            let path = points.map { "\(f(px(Double($0.entities)))),\(f(py(max($0.medianNs, 1))))" }.joined(separator: " ")
            s += "<g data-strategy=\"\(escape(name))\">\n"
            s += "<polyline fill=\"none\" stroke=\"\(style.color)\" stroke-width=\"2\"\(dash) points=\"\(path)\"/>\n"
            for p in points {
                s += marker(style, x: px(Double(p.entities)), y: py(max(p.medianNs, 1)),
                            title: "\(name) at \(Format.grouped(p.entities)): \(Format.duration(p.medianNs))")
            }
            let ly = top + 10 + Double(i) * 22
            s += "<line x1=\"\(f(left + plotW + 14))\" y1=\"\(f(ly))\" x2=\"\(f(left + plotW + 44))\" y2=\"\(f(ly))\" stroke=\"\(style.color)\" stroke-width=\"2\"\(dash)/>\n"
            s += marker(style, x: left + plotW + 29, y: ly, title: name)
            s += "<text x=\"\(f(left + plotW + 50))\" y=\"\(f(ly + 4))\">\(escape(name))</text>\n"
            s += "</g>\n"
        }
        for (i, line) in footer.enumerated() {
            s += "<text x=\"10\" y=\"\(f(top + plotH + 66 + Double(i) * 16))\" font-size=\"11\" fill=\"#444\">\(escape(line))</text>\n"
        }
        s += "</svg>\n"
        return s
    }

    /// The marker of `style` centred on (`x`, `y`), with a tooltip.
    static func marker(_ style: LineStyle, x: Double, y: Double, title: String) -> String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        let c = style.color
        let tip = "<title>\(escape(title))</title>"
        switch style.marker {
        case .circle:
            return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"4\" fill=\"\(c)\">\(tip)</circle>\n"
        case .square:
            return "<rect x=\"\(f(x - 4))\" y=\"\(f(y - 4))\" width=\"8\" height=\"8\" fill=\"\(c)\">\(tip)</rect>\n"
        case .triangle:
            return "<path d=\"M\(f(x)),\(f(y - 5)) L\(f(x + 5)),\(f(y + 4)) L\(f(x - 5)),\(f(y + 4)) Z\" fill=\"\(c)\">\(tip)</path>\n"
        case .triangleDown:
            return "<path d=\"M\(f(x)),\(f(y + 5)) L\(f(x + 5)),\(f(y - 4)) L\(f(x - 5)),\(f(y - 4)) Z\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\">\(tip)</path>\n"
        case .diamond:
            return "<path d=\"M\(f(x)),\(f(y - 5.5)) L\(f(x + 5.5)),\(f(y)) L\(f(x)),\(f(y + 5.5)) L\(f(x - 5.5)),\(f(y)) Z\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\">\(tip)</path>\n"
        case .cross:
            return "<path d=\"M\(f(x - 4)),\(f(y - 4)) L\(f(x + 4)),\(f(y + 4)) M\(f(x - 4)),\(f(y + 4)) L\(f(x + 4)),\(f(y - 4))\" stroke=\"\(c)\" stroke-width=\"2\">\(tip)</path>\n"
        case .plus:
            return "<path d=\"M\(f(x - 5)),\(f(y)) L\(f(x + 5)),\(f(y)) M\(f(x)),\(f(y - 5)) L\(f(x)),\(f(y + 5))\" stroke=\"\(c)\" stroke-width=\"2\">\(tip)</path>\n"
        case .ring:
            return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"4\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\">\(tip)</circle>\n"
        case .diamondFilled:
            return "<path d=\"M\(f(x)),\(f(y - 5.5)) L\(f(x + 5.5)),\(f(y)) L\(f(x)),\(f(y + 5.5)) L\(f(x - 5.5)),\(f(y)) Z\" fill=\"\(c)\">\(tip)</path>\n"
        case .triangleOpen:
            return "<path d=\"M\(f(x)),\(f(y - 5)) L\(f(x + 5)),\(f(y + 4)) L\(f(x - 5)),\(f(y + 4)) Z\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\">\(tip)</path>\n"
        case .squareOpen:
            return "<rect x=\"\(f(x - 4))\" y=\"\(f(y - 4))\" width=\"8\" height=\"8\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\">\(tip)</rect>\n"
        }
    }

    /// "100 ns", "1 µs", "10 ms", "1 s": a power of ten of nanoseconds.
    static func decade(_ exponent: Double) -> String {
        let e = Int(exponent)
        let units = ["ns", "µs", "ms", "s"]
        let unit = min(max(e / 3, 0), units.count - 1)
        let mantissa = Int(pow(10, Double(e - unit * 3)))
        return "\(Format.grouped(mantissa)) \(units[unit])"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
