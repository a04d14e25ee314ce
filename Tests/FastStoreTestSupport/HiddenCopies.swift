/// Older versions of a persistent value kept alive next to a snapshot of
/// what they held when taken, to prove later writes never reach them.
public struct HiddenCopies<Value, Snapshot> {
    public private(set) var copies: [(value: Value, snapshot: Snapshot)] = []
    private let limit: Int

    /// Keeps at most `limit` copies (the oldest are dropped first, which also
    /// lets nodes become unique again and exercises in-place writes).
    public init(limit: Int = 8) { self.limit = limit }

    public mutating func keep(_ value: Value, _ snapshot: Snapshot) {
        copies.append((value, snapshot))
        if copies.count > limit { copies.removeFirst() }
    }

    /// Calls `check` with every kept copy and its snapshot.
    public func verify(_ check: (Value, Snapshot) -> Void) {
        for copy in copies { check(copy.value, copy.snapshot) }
    }

    public var isEmpty: Bool { copies.isEmpty }
    public var count: Int { copies.count }
    public subscript(i: Int) -> (value: Value, snapshot: Snapshot) { copies[i] }
}
