import FastStore
import Foundation

/// What a test store's inner store did: every action that reached the
/// reducer, with the state after it, sorted into the sent action's own
/// reductions and the received ones.
///
/// Written on the store's draining thread (whichever thread that is), read
/// by the test, so every access takes the lock.
///
/// The sent action is told apart by the outermost middleware (see
/// ``middleware``): the first action to enter the chain after `beginSend`
/// is the sent one, and every reduction made while the chain handles it
/// (the middleware may pass it on zero or more times, or transform it) is
/// the send's. Actions dispatched from middleware are queued behind it, so
/// they enter the chain later and are received.
internal final class _TestStoreLog<State, Action>: @unchecked Sendable {
    /// One action that reached the reducer and the state it left.
    struct Reduction {
        let action: Action
        let state: State
    }

    private let lock = NSLock()
    /// A send waiting for its action to enter the chain.
    private var pendingSend: Int?
    /// The send whose action the chain is handling now.
    private var activeSend: Int?
    /// Reductions of each send, until the send takes them.
    private var sent: [Int: [Reduction]] = [:]
    /// Reductions of actions that were not sent, not yet received.
    private var received: [Reduction] = []

    init() {}

    /// Wraps the reducer: records each reduction.
    func reducer(_ reduce: @escaping (inout State, Action) -> Void) -> (inout State, Action) -> Void {
        { [self] state, action in
            reduce(&state, action)
            let reduction = Reduction(action: action, state: state)
            lock.lock()
            if let activeSend {
                sent[activeSend, default: []].append(reduction)
            } else {
                received.append(reduction)
            }
            lock.unlock()
        }
    }

    /// The outermost middleware: marks the sent action's pass through the
    /// chain.
    var middleware: Middleware<State, Action> {
        Middleware { [self] _, action, next in
            lock.lock()
            let send = pendingSend
            pendingSend = nil
            let outer = activeSend
            activeSend = send
            lock.unlock()
            next(action)
            lock.lock()
            activeSend = outer
            lock.unlock()
        }
    }

    /// Marks the next action to enter the chain as send `id`'s.
    func beginSend(_ id: Int) {
        lock.lock()
        pendingSend = id
        lock.unlock()
    }

    /// The reductions of send `id`, removed from the log.
    func takeSent(_ id: Int) -> [Reduction] {
        lock.lock()
        defer { lock.unlock() }
        pendingSend = nil
        return sent.removeValue(forKey: id) ?? []
    }

    /// The received reductions not yet taken, oldest first.
    var pendingReceived: [Reduction] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Removes and returns the oldest received reduction.
    func takeFirstReceived() -> Reduction? {
        lock.lock()
        defer { lock.unlock() }
        return received.isEmpty ? nil : received.removeFirst()
    }

    /// Removes and returns every received reduction.
    func takeAllReceived() -> [Reduction] {
        lock.lock()
        defer { lock.unlock() }
        let all = received
        received.removeAll()
        return all
    }
}
