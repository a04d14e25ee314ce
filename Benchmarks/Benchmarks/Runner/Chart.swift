import Foundation
import StrategyKit

/// A log-log line chart of time per dispatch (median) against the number of
/// entities, one line per strategy, written as plain SVG.
enum Chart {
    static let colors: [String: String] = [
        "full-copy": "#d62728", "reswift-like": "#ff7f0e", "faststore": "#2ca02c", "observation": "#1f77b4",
        "full-copy-persistent": "#9467bd", "observation-lazy": "#17becf",
    ]
    static let fallback = ["#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]

    static func svg(profile: String, results: [CellResult]) -> String {
        let width = 720.0, height = 440.0
        let left = 80.0, right = 170.0, top = 40.0, bottom = 60.0
        let plotW = width - left - right, plotH = height - top - bottom
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
        <text x="\(f(left + plotW / 2))" y="22" text-anchor="middle" font-size="15" font-weight="bold">\(escape(profile)): time per dispatch against state size (log-log)</text>

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
        s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(height - 16))\" text-anchor=\"middle\">entities in the state</text>\n"
        s += "<text x=\"18\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(f(top + plotH / 2)))\">time per dispatch (median)</text>\n"

        var strategies: [String] = []
        for r in results where !strategies.contains(r.strategy) { strategies.append(r.strategy) }
        for (i, name) in strategies.enumerated() {
            let color = colors[name] ?? fallback[i % fallback.count]
            let points = results.filter { $0.strategy == name }.sorted { $0.entities < $1.entities }
            let path = points.map { "\(f(px(Double($0.entities)))),\(f(py(max($0.medianNs, 1))))" }.joined(separator: " ")
            s += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2.5\" points=\"\(path)\"/>\n"
            for p in points {
                s += "<circle cx=\"\(f(px(Double(p.entities))))\" cy=\"\(f(py(max(p.medianNs, 1))))\" r=\"4\" fill=\"\(color)\"><title>\(escape(name)) at \(Format.grouped(p.entities)): \(Format.duration(p.medianNs))</title></circle>\n"
            }
            let ly = top + 10 + Double(i) * 22
            s += "<line x1=\"\(f(left + plotW + 16))\" y1=\"\(f(ly))\" x2=\"\(f(left + plotW + 40))\" y2=\"\(f(ly))\" stroke=\"\(color)\" stroke-width=\"2.5\"/>\n"
            s += "<text x=\"\(f(left + plotW + 46))\" y=\"\(f(ly + 4))\">\(escape(name))</text>\n"
        }
        s += "</svg>\n"
        return s
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
