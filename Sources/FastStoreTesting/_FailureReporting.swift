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
/// current test, and never loses one: a failure no framework records fails
/// the process.
internal enum _FailureReporter {
    /// When set, failures go here instead of to a test framework.
    @TaskLocal static var collector: _FailureCollector?

    /// Reports one failure: to the collector when one is installed; inside a
    /// Swift Testing test, as an issue; else as an XCTest failure. When no
    /// framework records it (no test is running: XCTest's `XCTFail` outside
    /// a test case records nothing on Linux), it is written to standard
    /// error and the process exits with a failure.
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
        #if canImport(XCTest) && canImport(Darwin)
        // NB: Apple's XCTest reports a failure made outside a test case
        // itself.
        XCTFail(message, file: location.filePath, line: location.line)
        #else
        #if canImport(XCTest)
        let witness = _XCTestFailureWitness.shared
        let recordedBefore = witness.recorded
        XCTFail(message, file: location.filePath, line: location.line)
        if witness.recorded != recordedBefore { return }
        #endif
        failProcess(message, at: location)
        #endif
    }

    /// Writes `message` to standard error, with where it was found, and
    /// exits with a failure: no test framework recorded it.
    static func failProcess(_ message: String, at location: _SourceLocation) -> Never {
        let text = """
            \(location.fileID):\(location.line): error: FastStoreTesting: \(message)
            FastStoreTesting: no test framework recorded this failure (it was reported outside a Swift Testing test and an XCTest test case), so the process exits with a failure.

            """
        FileHandle.standardError.write(Data(text.utf8))
        exit(EXIT_FAILURE)
    }
}

#if canImport(XCTest) && !canImport(Darwin)
/// Counts the failures XCTest records, to tell whether an `XCTFail` was
/// recorded: swift-corelibs-xctest records one only while a test case
/// runs, and says nothing otherwise.
///
/// NB: `@unchecked Sendable`: `count` is guarded by `lock`. Registered with
/// XCTest's observation center at the first failure, before the `XCTFail`
/// it checks.
internal final class _XCTestFailureWitness: NSObject, XCTestObservation, @unchecked Sendable {
    static let shared: _XCTestFailureWitness = {
        let witness = _XCTestFailureWitness()
        XCTestObservationCenter.shared.addTestObserver(witness)
        return witness
    }()

    private let lock = NSLock()
    private var count = 0

    /// The failures XCTest has recorded since the witness was registered.
    var recorded: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func testCase(_ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?, atLine lineNumber: Int) {
        lock.lock()
        count += 1
        lock.unlock()
    }
}
#endif
