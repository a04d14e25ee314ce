import Foundation

/// How figures read in tables, charts and messages: durations with their
/// unit, bytes in binary units, counts grouped by thousands.
public enum Format {
    public static func duration(_ ns: Double) -> String {
        if ns < 1_000 { return String(format: "%.0f ns", ns) }
        if ns < 1_000_000 { return String(format: ns < 10_000 ? "%.2f µs" : "%.1f µs", ns / 1_000) }
        if ns < 1_000_000_000 { return String(format: ns < 10_000_000 ? "%.2f ms" : "%.1f ms", ns / 1_000_000) }
        return String(format: "%.2f s", ns / 1_000_000_000)
    }

    public static func bytes(_ b: Double) -> String {
        let sign = b < 0 ? "-" : ""
        let v = abs(b)
        if v < 1024 { return sign + String(format: "%.0f B", v) }
        if v < 1024 * 1024 { return sign + String(format: "%.1f KiB", v / 1024) }
        if v < 1024 * 1024 * 1024 { return sign + String(format: "%.1f MiB", v / 1024 / 1024) }
        return sign + String(format: "%.2f GiB", v / 1024 / 1024 / 1024)
    }

    public static func count(_ c: Double) -> String {
        if c == c.rounded() && abs(c) < 1e6 { return String(format: "%.0f", c) }
        if abs(c) < 100 { return String(format: "%.2f", c) }
        if abs(c) < 1e6 { return String(format: "%.0f", c) }
        return String(format: "%.2fM", c / 1e6)
    }

    public static func rate(_ r: Double) -> String {
        if r >= 1e6 { return String(format: "%.2fM/s", r / 1e6) }
        if r >= 1e3 { return String(format: "%.1fk/s", r / 1e3) }
        if r >= 10 { return String(format: "%.0f/s", r) }
        return String(format: "%.2f/s", r)
    }

    public static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, ch) in s.reversed().enumerated() {
            if i > 0, i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }

    public static func ratio(_ r: Double) -> String {
        if r >= 100 { return String(format: "%.0f×", r) }
        if r >= 10 { return String(format: "%.1f×", r) }
        return String(format: "%.2f×", r)
    }
}
