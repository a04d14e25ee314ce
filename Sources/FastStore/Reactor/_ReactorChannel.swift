/// A reactor's pipe into a `transform` hook: an unbounded buffer with one
/// consumer, which tells the reactor when it is drained and its consumer
/// waits (so `flush()` knows nothing is in flight inside the hook).
///
/// NB: `@unchecked Sendable`: every field is guarded by `lock`.
final class _ReactorChannel<Element: Sendable>: @unchecked Sendable {
    private let lock = _Lock()
    private var buffer: [Element] = []
    private var head = 0
    private var waiter: CheckedContinuation<Element?, Never>?
    private var isFinished = false
    /// Called (on the consumer's thread, without the lock) each time the
    /// consumer starts waiting on an empty buffer.
    private let onWaiting: @Sendable () -> Void

    init(onWaiting: @escaping @Sendable () -> Void) {
        self.onWaiting = onWaiting
    }

    /// Hands `element` to the waiting consumer, or buffers it. Does nothing
    /// once the channel is finished.
    ///
    /// - Complexity: O(1) amortized.
    func send(_ element: Element) {
        lock.lock()
        if isFinished {
            lock.unlock()
            return
        }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: element)
        } else {
            buffer.append(element)
            lock.unlock()
        }
    }

    /// Ends the channel: the consumer gets the buffered elements, then
    /// `nil`.
    func finish() {
        lock.lock()
        isFinished = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: nil)
    }

    /// Whether nothing is buffered and the consumer waits for more (or the
    /// channel is finished: nothing will be read any more).
    var isDrained: Bool {
        lock.withLock { isFinished || (head == buffer.count && waiter != nil) }
    }

    /// The next element, waiting for one; `nil` once finished (or when the
    /// waiting task is cancelled).
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                lock.lock()
                if head < buffer.count {
                    let element = buffer[head]
                    head += 1
                    if head == buffer.count {
                        buffer.removeAll(keepingCapacity: true)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: element)
                } else if isFinished || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                    onWaiting()
                }
            }
        } onCancel: {
            lock.lock()
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume(returning: nil)
        }
    }
}
