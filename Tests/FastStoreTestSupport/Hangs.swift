import Foundation

/// Runs `body` on a thread of its own; whether it returned within `seconds`
/// (a deadlock, or a thread waiting for itself, would not: the test then
/// fails instead of hanging). The bound is generous: it detects a hang, it
/// does not time anything.
public func returnsOnAnotherThread(within seconds: Double = 60, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done.wait(timeout: .now() + seconds) == .success
}
