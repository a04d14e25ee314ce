import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import Testing

/// Data races in the saver, found by ThreadSanitizer:
/// `swift test --sanitize=thread --scratch-path .build-tsan --filter PersistenceSaverRaceTests`.
/// Without the sanitizer they pass either way.
@Suite struct PersistenceSaverRaceTests {
    /// A flag set by one thread, read by another.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    /// `close()` cleared the saver's thread after waiting for it, outside
    /// the lock under which `waitUntilSaved()` (any thread, before it finds
    /// the file closed) reads it.
    @Test func waitingOnAnotherThreadWhileTheFileClosesDoesNotRace() throws {
        let folder = temporaryDirectory()
        for round in 0 ..< 10 {
            let file = try PersistentState(path: folder.appendingPathComponent("state\(round).sqlite").path, initial: CrashModel.initial())
            let started = DispatchSemaphore(value: 0)
            let ended = DispatchSemaphore(value: 0)
            let closed = Flag()
            let waiter = Thread {
                started.signal()
                // NB: on until close() returned: the reads during and after it.
                while !closed.isSet { _ = try? file.waitUntilSaved() }
                ended.signal()
            }
            waiter.start()
            started.wait()
            try file.close()
            closed.set()
            ended.wait()
        }
    }
}
