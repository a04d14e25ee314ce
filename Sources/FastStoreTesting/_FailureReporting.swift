#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif
import Foundation

/// Where a failure points: the call site of the `TestStore` method that
/// found it. Every public method takes the four parts as defaulted
/// arguments, the way Swift Testing's `#expect` and XCTest's `XCTFail` do.
@usableFromInline
internal struct _SourceLocation: Sendable {
    @usableFromInline let fileID: StaticString
    @usableFromInline let filePath: StaticString
    @usableFromInline let line: UInt
    @usableFromInline let column: UInt

    @inlinable
    init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }
}

/// Collects the failures a test store reports instead of reporting them:
/// the white-box hook the tests of the failure paths use (from XCTest, which
/// has no `withKnownIssue` on Linux).
internal final class _FailureCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var _messages: [String] = []

    init() {}

    /// The messages reported so far, in order.
    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return _messages
    }

    func append(_ message: String) {
        lock.lock()
        _messages.append(message)
        lock.unlock()
    }
}

/// Reports a test store's failures to the test framework running the
/// current test.
internal enum _FailureReporter {
    /// When set, failures go here instead of to a test framework.
    @TaskLocal static var collector: _FailureCollector?

    /// Reports one failure: to the collector when one is installed; inside a
    /// Swift Testing test, as an issue; otherwise as an XCTest failure.
    static func report(_ message: String, at location: _SourceLocation) {
        if let collector {
            collector.append(message)
            return
        }
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: String(describing: location.fileID),
                    filePath: String(describing: location.filePath),
                    line: Int(location.line),
                    column: Int(location.column)
                )
            )
            return
        }
        #endif
        #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
        #else
        // NB: no test framework to tell; a failure must not pass silently.
        fatalError("FastStoreTesting: \(message)", file: location.filePath, line: location.line)
        #endif
    }
}
