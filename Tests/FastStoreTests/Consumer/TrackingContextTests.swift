import Foundation
import Testing

@testable import FastStore

/// The thread-local tracking context (`_TrackingContext`, found through
/// `CFastStore`'s C thread-local): one per thread, made on first use, and
/// released when its thread exits.
@Suite struct TrackingContextTests {
    final class Probe: @unchecked Sendable {
        // NB: written by the probed thread before it resumes the test, read
        // by the test after.
        weak var context: _TrackingContext?
        var sawNoneBeforeFirstUse = false
        var sameContextOnSecondRead = false
        var otherThanTheTestThreads = false
    }

    @Test func eachThreadHasItsOwnContextReleasedWhenTheThreadExits() async throws {
        let callers = ObjectIdentifier(_TrackingContext.current)
        let probe = Probe()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                probe.sawNoneBeforeFirstUse = _TrackingContext.ifPresent == nil
                let context = _TrackingContext.current
                probe.context = context
                probe.sameContextOnSecondRead = _TrackingContext.ifPresent === context
                probe.otherThanTheTestThreads = ObjectIdentifier(context) != callers
                continuation.resume()
            }
            thread.start()
        }
        #expect(probe.sawNoneBeforeFirstUse, "a new thread starts without a context")
        #expect(probe.sameContextOnSecondRead, "a thread finds the context it made")
        #expect(probe.otherThanTheTestThreads, "threads do not share contexts")
        // The thread exits after resuming us: its context goes with it.
        let deadline = ContinuousClock.now + .seconds(10)
        while probe.context != nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(probe.context == nil, "a thread's context is released when the thread exits")
    }
}
