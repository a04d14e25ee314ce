/// Traps with `message` when `condition` is false, in every build
/// configuration, printing the message in release builds too (the standard
/// library's `precondition` drops it there): what a misuse of FastStore's
/// API gets, so the message names the problem.
@inlinable @inline(__always)
internal func _usagePrecondition(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #file, line: UInt = #line
) {
    if _slowPath(!condition()) { fatalError(message(), file: file, line: line) }
}
