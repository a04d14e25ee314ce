import Foundation
import Testing

@testable import FastStore

/// The thread-local tracking context (`_TrackingContext`, found through
/// `CFastStore`'s C thread-local): one per thread, made on first use, and
/// released when its thread exits.
@Suite struct TrackingContextTests {
    final class Probe: @unchecked Sendable {
        // NB: written by the probed thread before it resumes the test, read
        // by the test after; under a lock all the same, since
        // ThreadSanitizer does not see the order a continuation's resume
        // gives (the concurrency runtime is not instrumented), and reported
        // the findings' write and read as a race.
        private let lock = NSLock()
        weak var context: _TrackingContext?
        private var _findings = (sawNoneBeforeFirstUse: false, sameContextOnSecondRead: false, otherThanTheTestThreads: false)
        var findings: (sawNoneBeforeFirstUse: Bool, sameContextOnSecondRead: Bool, otherThanTheTestThreads: Bool) {
            get { lock.withLock { _findings } }
            set { lock.withLock { _findings = newValue } }
        }
    }

    @Test func eachThreadHasItsOwnContextReleasedWhenTheThreadExits() async throws {
        let callers = ObjectIdentifier(_TrackingContext.current)
        let probe = Probe()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                let sawNone = _TrackingContext.ifPresent == nil
                let context = _TrackingContext.current
                probe.context = context
                probe.findings = (sawNone, _TrackingContext.ifPresent === context, ObjectIdentifier(context) != callers)
                continuation.resume()
            }
            thread.start()
        }
        let findings = probe.findings
        #expect(findings.sawNoneBeforeFirstUse, "a new thread starts without a context")
        #expect(findings.sameContextOnSecondRead, "a thread finds the context it made")
        #expect(findings.otherThanTheTestThreads, "threads do not share contexts")
        // The thread exits after resuming us: its context goes with it.
        let deadline = ContinuousClock.now + .seconds(10)
        while probe.context != nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(probe.context == nil, "a thread's context is released when the thread exits")
    }
}
