/// The reference consumer of the differential tests: it keeps the whole
/// previous state and, at every consume, runs every selector on the old and
/// the new state and compares — ReSwiftConsumer's strategy, with no
/// tracking at all.
///
/// Selections are type-erased to `AnyHashable` so that one reference serves
/// every selector of a test.
public final class NaiveConsumer<State> {
    public struct Entry {
        public let id: Int
        /// The selection, or `nil` for an optional selection that is `nil`.
        let select: (State) -> AnyHashable?
        /// Whether the selection counts as `nil` before the first consume
        /// (optional and predicted selections), rather than as absent.
        let baselineIsNil: Bool
        /// Whether two selections are to be taken as the same.
        let same: (AnyHashable?, AnyHashable?) -> Bool
        /// Called with the previous selection (`.none` when there is none)
        /// and the new one when they are not the same.
        let deliver: (AnyHashable??, AnyHashable?) -> Void
        var hasSeenState = false
        var isRemoved = false
    }

    public private(set) var previous: State?
    private var entries: [Entry] = []

    public init() {}

    public var count: Int { entries.count { !$0.isRemoved } }

    /// Registers a consumer; `id` names it in events and in `remove`.
    public func add(
        id: Int,
        baselineIsNil: Bool,
        select: @escaping (State) -> AnyHashable?,
        same: @escaping (AnyHashable?, AnyHashable?) -> Bool = { $0 == $1 },
        deliver: @escaping (AnyHashable??, AnyHashable?) -> Void
    ) {
        entries.append(Entry(id: id, select: select, baselineIsNil: baselineIsNil, same: same, deliver: deliver))
    }

    public func remove(id: Int) {
        for index in entries.indices where entries[index].id == id { entries[index].isRemoved = true }
    }

    public func removeAll() {
        for index in entries.indices { entries[index].isRemoved = true }
    }

    /// Delivers `newState`: every consumer, in registration order, compares
    /// its selection of the previous state (or its baseline) with its
    /// selection of `newState`. Consumers added during the consume wait for
    /// the next one; consumers removed during it are not called afterwards.
    public func consume(newState: State) {
        let old = previous
        let registered = entries.count
        for index in 0..<registered where !entries[index].isRemoved {
            let entry = entries[index]
            let before: AnyHashable??
            if entry.hasSeenState, let old {
                before = .some(entry.select(old))
            } else {
                before = entry.baselineIsNil ? .some(nil) : .none
            }
            let after = entry.select(newState)
            entries[index].hasSeenState = true
            if case .some(let before) = before, entry.same(before, after) { continue }
            entry.deliver(before, after)
        }
        previous = newState
    }
}
