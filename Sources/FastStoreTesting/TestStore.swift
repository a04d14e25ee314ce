import FastStore

/// A store for tests that asserts, step by step, everything its reducer and
/// middleware do.
///
/// Send an action with the change you expect it to make; the store reduces
/// it and fails the test unless the state changed exactly that way. Actions
/// middleware dispatches must be received, in order, each with its change;
/// any left unreceived when the test sends the next action, calls
/// ``finish(fileID:filePath:line:column:)`` or lets the store go, fail the
/// test:
///
/// ```swift
/// @Test func load() async {
///     let store = TestStore(initialState: Feed(), reducer: feedReducer, middleware: [loader])
///     store.send(.refresh) { $0.isLoading = true }
///     await store.receive(.loaded(posts), timeout: .seconds(1)) {
///         $0.isLoading = false
///         $0.posts = posts
///     }
///     store.finish()
/// }
/// ```
///
/// A failure shows only the paths where the expected and actual states
/// differ, each with both values (`state.rows[id: 42].title: "a" → "b"`,
/// expected on the left), found by a structural walk that skips versioned
/// subtrees the two states share. Failures go to Swift Testing when a Swift
/// Testing test runs, else to XCTest. None is lost: a failure that no
/// framework records (outside any test: a script, a tool, a child process;
/// on Linux, XCTest records nothing outside a test case) is written to
/// standard error with its place, and the process exits with a failure.
///
/// ## Isolation
/// `TestStore` is not bound to an actor: its synchronous methods (``send(_:assert:fileID:filePath:line:column:)``,
/// the synchronous ``receive(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)``,
/// ``finish(fileID:filePath:line:column:)``) run on the caller's thread,
/// with no `await`, from synchronous and asynchronous tests of either
/// framework, on or off the main actor. FastStore's `Store` reduces a
/// dispatch on the calling thread when no other drain runs, so a send is
/// reduced before it returns. The waiting `receive(_:timeout:…)` runs on
/// the caller's actor (its `isolation` parameter). It is not `Sendable`:
/// one test drives it.
public final class TestStore<State: Equatable, Action> {
    /// The state as asserted so far: after the last sent or received action.
    public internal(set) var state: State

    @usableFromInline let _store: Store<State, Action>
    let _log: _TestStoreLog<State, Action>
    /// Sends so far: the id of the next send's reductions in the log.
    var _sendCount = 0
    /// Whether ``finish(fileID:filePath:line:column:)`` ran (deinit then
    /// checks nothing).
    var _isFinished = false
    /// Where the store was made: what a failure found at deinit points at.
    let _location: _SourceLocation

    /// Creates a test store over a new `Store` with the same reducer and
    /// middleware.
    ///
    /// - Parameters:
    ///   - initialState: The initial state.
    ///   - reducer: Applies one action to the state, in place.
    ///   - middleware: Runs, in order, before the reducer for every action.
    ///   - fileID: The file a failure found when the store is deallocated
    ///     points at (default: the caller's).
    ///   - filePath: The full path of that file (default: the caller's).
    ///   - line: The line that failure points at (default: the caller's).
    ///   - column: The column that failure points at (default: the
    ///     caller's).
    public init(
        initialState: State,
        reducer: @escaping Reducer<State, Action>,
        middleware: [Middleware<State, Action>] = [],
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let log = _TestStoreLog<State, Action>()
        state = initialState
        _log = log
        _store = Store(state: initialState, reducer: log.reducer(reducer), middleware: [log.middleware] + middleware)
        _location = _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    deinit {
        guard !_isFinished else { return }
        _failUnreceived(
            "the test store was deallocated",
            at: _location)
    }

    /// Sends an action and asserts the change it makes to the state.
    ///
    /// `updateStateToExpectedResult` gets the state as asserted so far and
    /// must make it equal to the state after the action (no more, no less);
    /// without it the action must not change the state. The action's
    /// reductions are those made while the middleware chain handles it (none
    /// when middleware drops it); actions middleware dispatches are received
    /// later (``receive(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)``).
    ///
    /// Fails when actions are still unreceived (they are then skipped), when
    /// the states differ (the message lists the differing paths), or when the
    /// closure throws or changes nothing although the state did not change.
    ///
    /// - Complexity: the reducer and middleware, plus one `==`; on failure,
    ///   the difference walk (see ``TestStore``).
    public func send(
        _ action: Action,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let location = _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        _store.waitUntilIdle()
        let unreceived = _log.takeAllReceived()
        if let last = unreceived.last {
            _FailureReporter.report(
                "Must handle \(_actions(unreceived.count)) received before sending \(_describe(action)):\n"
                    + _list(unreceived),
                at: location)
            state = last.state
        }
        _sendCount += 1
        let id = _sendCount
        _log.beginSend(id)
        _store.dispatch(action)
        _store.waitUntilIdle()
        let reductions = _log.takeSent(id)
        _expectChange(
            to: reductions.last?.state ?? state, update: updateStateToExpectedResult,
            step: "sending " + _describe(action), at: location)
    }

    /// Asserts that every received action was received: fails, listing
    /// them, when some were not. Call it at the end of a test; a store
    /// deallocated without it checks the same.
    ///
    /// Waits for the store to be idle first, not for work middleware started
    /// elsewhere (a `Task`): await the actions you expect with
    /// ``receive(_:timeout:assert:isolation:fileID:filePath:line:column:)-(Action,_,_,_,_,_,_,_)``.
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        _isFinished = true
        _failUnreceived(
            "the test finished",
            at: _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Receives and drops every action received so far, taking the state
    /// after the last of them as asserted.
    public func skipReceivedActions() {
        _store.waitUntilIdle()
        if let last = _log.takeAllReceived().last {
            state = last.state
        }
    }

    // MARK: - Checks

    /// Fails when actions are unreceived, naming `moment`.
    func _failUnreceived(_ moment: String, at location: _SourceLocation) {
        _store.waitUntilIdle()
        let unreceived = _log.takeAllReceived()
        guard let last = unreceived.last else { return }
        _FailureReporter.report(
            "Must handle \(_actions(unreceived.count)) received before \(moment):\n" + _list(unreceived),
            at: location)
        state = last.state
    }

    /// Checks that `actual` is the asserted state updated by `update`, then
    /// takes `actual` as asserted (so one wrong step fails once).
    func _expectChange(
        to actual: State, update: ((inout State) throws -> Void)?, step: String, at location: _SourceLocation
    ) {
        let previous = state
        state = actual
        var expected = previous
        if let update {
            do {
                try update(&expected)
            } catch {
                _FailureReporter.report("Threw error while \(step): \(error)", at: location)
                return
            }
        }
        guard expected == actual else {
            let difference = _StateDifference(expected: expected, actual: actual)
            let lines = difference.isEmpty
                ? "  state: \(_StateDifference.describe(expected)) → \(_StateDifference.describe(actual))"
                : difference.lines
            let header = update == nil
                ? "State changed while \(step), but no change was expected (expected → actual):"
                : "State change does not match expectation while \(step) (expected → actual):"
            _FailureReporter.report(header + "\n" + lines, at: location)
            return
        }
        if update != nil && expected == previous {
            _FailureReporter.report(
                "Expected the state to change while \(step), but it did not, and the closure changed nothing: omit the closure to assert no change.",
                at: location)
        }
    }

    /// An action as messages show it: `.increment`, `.set(3)`.
    func _describe(_ action: Action) -> String {
        let description = String(reflecting: action)
        let typeName = String(reflecting: Action.self)
        guard description.hasPrefix(typeName + ".") else { return description }
        return String(description.dropFirst(typeName.count))
    }

    func _actions(_ count: Int) -> String {
        count == 1 ? "1 action" : "\(count) actions"
    }

    /// Reductions as a bulleted list of their actions (the first 20).
    func _list(_ reductions: [_TestStoreLog<State, Action>.Reduction]) -> String {
        var lines = reductions.prefix(20).map { "  • " + _describe($0.action) }
        if reductions.count > 20 { lines.append("  … and \(reductions.count - 20) more") }
        return lines.joined(separator: "\n")
    }
}
