@_spi(Testing) import FastStore
import Foundation
import Testing

// The app the sequence and cause tests run: todos with ids in a versioned
// state, a filter and a counter; and a plain (unversioned) state.

struct SeqTodo: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done = false
}

struct SeqState: Sendable {
    var todos: IdentifiedList<SeqTodo>
    var filter = "all"
    var counter = 0
}

typealias SeqApp = Versioned<SeqState>

enum SeqAction: Equatable, Sendable {
    case toggle(Int)
    case rename(Int, String)
    case setFilter(String)
    case add(Int)
}

func seqReducer(_ state: inout SeqApp, _ action: SeqAction) {
    switch action {
    case .toggle(let id): state.todos[id: id]?.done.toggle()
    case .rename(let id, let title): state.todos[id: id]?.title = title
    case .setFilter(let filter): state.filter = filter
    case .add(let n): state.counter += n
    }
}

func makeSeqStore(rows: Int = 100) -> Store<SeqApp, SeqAction> {
    let todos = IdentifiedList((0..<rows).map { SeqTodo(id: $0, title: "todo \($0)") })
    return Store(state: SeqApp(SeqState(todos: todos)), reducer: seqReducer)
}

/// A state that is not versioned: consumers compare its selections.
struct PlainPair: Equatable, Sendable {
    var left = 0
    var right = 0
}

enum PlainPairAction: Equatable, Sendable { case left, right }

func plainPairReducer(_ state: inout PlainPair, _ action: PlainPairAction) {
    switch action {
    case .left: state.left += 1
    case .right: state.right += 1
    }
}

/// A state that is not `Sendable`: sequences of it must still be iterable
/// from an actor.
final class NonSendableBox {
    var value: Int
    init(_ value: Int) { self.value = value }
}

struct NonSendableState {
    var box = NonSendableBox(0)
    var count = 0
}

/// How many times a selector ran, from whatever thread.
final class RunCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func tick() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Polls `condition` until it holds or about `seconds` pass; returns whether
/// it held. The bound is generous: it detects a value that never comes, it
/// does not time anything (under ThreadSanitizer, beside the other suites
/// on two cores, a task waited more than 10 s for its turn).
@discardableResult
func eventually(
    isolation: isolated (any Actor)? = #isolation, _ seconds: Double = 120, _ condition: () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Runs `body` on its own thread and waits for it without blocking a
/// thread of the concurrency pool.
func onOwnThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            body()
            continuation.resume()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
