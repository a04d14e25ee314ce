import FastStore

extension TestStore {
    /// Receives the oldest action that reached the reducer without being
    /// sent (one middleware dispatched), asserts it is `expectedAction`, and
    /// asserts the change it made, as ``send(_:assert:fileID:filePath:line:column:)``
    /// does.
    ///
    /// Fails when no action was received, or when the oldest one is another
    /// action (it is received anyway, its state taken as asserted).
    ///
    /// - Complexity: one `==` of the states; on failure, the difference walk.
    public func receive(
        _ expectedAction: Action,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) where Action: Equatable {
        _store.waitUntilIdle()
        _receive(
            { $0 == expectedAction }, expecting: _describe(expectedAction), update: updateStateToExpectedResult,
            at: _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Receives the oldest received action, asserts `isMatching` accepts it
    /// (a case check: `{ if case .loaded = $0 { true } else { false } }`),
    /// and asserts the change it made.
    public func receive(
        _ isMatching: (Action) -> Bool,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        _store.waitUntilIdle()
        _receive(
            isMatching, expecting: "an action matching the predicate", update: updateStateToExpectedResult,
            at: _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Waits up to `timeout` for an action to be received (middleware that
    /// dispatches from a `Task`), then receives it as
    /// ``receive(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)`` does.
    ///
    /// Runs on the caller's actor (`isolation`), so a main-actor test and
    /// main-actor middleware tasks take turns while it waits.
    public func receive(
        _ expectedAction: Action,
        timeout: Duration,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async where Action: Equatable {
        await _waitForReceived(timeout: timeout, isolation: isolation)
        _receive(
            { $0 == expectedAction }, expecting: _describe(expectedAction), update: updateStateToExpectedResult,
            at: _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            waited: timeout)
    }

    /// Waits up to `timeout` for an action to be received, then receives it
    /// as ``receive(_:assert:fileID:filePath:line:column:)-((Action)->Bool,_,_,_,_,_)`` does.
    public func receive(
        _ isMatching: (Action) -> Bool,
        timeout: Duration,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await _waitForReceived(timeout: timeout, isolation: isolation)
        _receive(
            isMatching, expecting: "an action matching the predicate", update: updateStateToExpectedResult,
            at: _SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            waited: timeout)
    }

    // MARK: - Engine

    /// Polls (every millisecond, yielding the actor) until an action is
    /// received or `timeout` passes.
    func _waitForReceived(timeout: Duration, isolation: isolated (any Actor)?) async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            _store.waitUntilIdle()
            if !_log.pendingReceived.isEmpty || clock.now >= deadline { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    func _receive(
        _ isMatching: (Action) -> Bool,
        expecting expected: String,
        update: ((inout State) throws -> Void)?,
        at location: _SourceLocation,
        waited timeout: Duration? = nil
    ) {
        guard let reduction = _log.takeFirstReceived() else {
            let wait = timeout.map { " within \($0)" } ?? ""
            _FailureReporter.report("Expected to receive \(expected)\(wait), but received no action.", at: location)
            return
        }
        guard isMatching(reduction.action) else {
            state = reduction.state
            _FailureReporter.report(
                "Received an unexpected action:\n  expected: \(expected)\n  received: \(_describe(reduction.action))",
                at: location)
            return
        }
        _expectChange(
            to: reduction.state, update: update, step: "receiving " + _describe(reduction.action), at: location)
    }
}
