/// A naive reference model of a versioned list: an `Array` of rows, each
/// with a test-assigned identity token and the number of the last write.
///
/// Apply the same operations to a `VersionedList` and to this model; the
/// model's ``naiveDifference(from:)`` is the element-by-element diff the
/// list's structural diff must reproduce.
public struct ListReferenceModel<Value>: Sendable where Value: Sendable {
    public struct Row: Sendable {
        public var token: Int
        public var written: Int
        public var value: Value
    }

    public private(set) var rows: [Row] = []
    /// Shared by every copy forked from one model, so tokens and write
    /// numbers never repeat across sibling versions.
    private let counter: _Counter

    public init<S: Sequence>(_ values: S) where S.Element == Value {
        counter = _Counter()
        rows = values.map { makeRow($0) }
    }

    public var values: [Value] { rows.map(\.value) }
    public var count: Int { rows.count }

    private func makeRow(_ value: Value) -> Row {
        let token = counter.next()
        return Row(token: token, written: token, value: value)
    }

    public mutating func set(_ value: Value, at index: Int) {
        rows[index].value = value
        rows[index].written = counter.next()
    }

    public mutating func insert(_ value: Value, at index: Int) {
        rows.insert(makeRow(value), at: index)
    }

    public mutating func remove(at index: Int) {
        rows.remove(at: index)
    }

    public mutating func replaceSubrange(_ range: Range<Int>, with values: [Value]) {
        rows.replaceSubrange(range, with: values.map { makeRow($0) })
    }

    public mutating func removeAll(where predicate: (Value) -> Bool) {
        rows.removeAll { predicate($0.value) }
    }

    /// Sorting gives every row a new identity, as `VersionedList.sort` does.
    public mutating func sort(by less: (Value, Value) -> Bool) {
        rows = rows.map(\.value).sorted(by: less).map { makeRow($0) }
    }

    /// The naive diff from `older`: rows compared one by one by token.
    public func naiveDifference(from older: ListReferenceModel) -> (
        removed: [Int], inserted: [Int], updated: [Int], updatedInOlder: [Int]
    ) {
        var newOffsets: [Int: Int] = [:]
        for (offset, row) in rows.enumerated() { newOffsets[row.token] = offset }
        var oldOffsets: [Int: Int] = [:]
        for (offset, row) in older.rows.enumerated() { oldOffsets[row.token] = offset }
        let removed = older.rows.indices.filter { newOffsets[older.rows[$0].token] == nil }
        let inserted = rows.indices.filter { oldOffsets[rows[$0].token] == nil }
        var updated: [Int] = []
        var updatedInOlder: [Int] = []
        for (offset, row) in rows.enumerated() {
            if let old = oldOffsets[row.token], older.rows[old].written != row.written {
                updated.append(offset)
                updatedInOlder.append(old)
            }
        }
        return (removed, inserted, updated, updatedInOlder)
    }
}

/// A counter shared between copies of a model.
public final class _Counter: @unchecked Sendable {
    private var value = 0
    public init() {}
    public func next() -> Int {
        value += 1
        return value
    }
}
