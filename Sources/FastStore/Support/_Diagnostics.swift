#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Debug-build notes about slow paths FastStore had to take (printed to
/// standard error): the first few of a process, then one line saying the
/// rest are not printed.
@usableFromInline
internal enum _Diagnostics {
    nonisolated(unsafe) static var _printed = 0
    static let _lock = _Lock()
    static let _limit = 8

    @usableFromInline
    static func note(_ message: @autoclosure () -> String) {
        _lock.lock()
        defer { _lock.unlock() }
        guard _printed <= _limit else { return }
        _printed += 1
        let line = _printed > _limit
            ? "FastStore: further notes are not printed.\n"
            : "FastStore: note: \(message())\n"
        var text = line
        text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }
}
