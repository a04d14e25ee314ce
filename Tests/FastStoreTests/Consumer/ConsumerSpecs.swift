@_spi(Testing) import FastStore
import FastStoreTestSupport

/// One delivered callback, as both the fast and the naive consumer report
/// it.
struct ConsumerEvent: Equatable, CustomStringConvertible {
    let id: Int
    let old: AnyHashable?
    let new: AnyHashable?
    var description: String {
        "#\(id) \(old.map { "\($0)" } ?? "nil") -> \(new.map { "\($0)" } ?? "nil")"
    }
}

final class EventLog {
    var events: [ConsumerEvent] = []
    /// Run after consumer `id`'s callback: what a callback does besides
    /// being logged (e.g. removing another consumer during the consume).
    var afterDelivery: [Int: () -> Void] = [:]
    func append(_ id: Int, _ old: AnyHashable?, _ new: AnyHashable?) {
        events.append(ConsumerEvent(id: id, old: old, new: new))
        afterDelivery[id]?()
    }
    func take() -> [ConsumerEvent] { defer { events = [] }; return events }
}

/// The callback shapes of `StateConsumer.add`.
enum CallbackShape: CaseIterable {
    case oldNew, new, strictOldNew
    case optionalOldNew, optionalNew, optionalOldNonNilNew
    case predict, predictNonNilNew
}

/// A selector of the test tree, with a name for failure messages, that can
/// register itself with both consumers under every callback shape.
struct SelectorSpec {
    let name: String
    let optional: Bool
    let register: (_ shape: CallbackShape, _ id: Int, _ fast: StateConsumer<TreeState>, _ naive: NaiveConsumer<TreeState>,
                   _ fastLog: EventLog, _ naiveLog: EventLog, _ counter: SelectorCounter) -> ConsumerHandle<TreeState>

    static func plain<T: Hashable>(_ name: String, _ select: @escaping (TreeState) -> T) -> SelectorSpec {
        SelectorSpec(name: name, optional: false) { shape, id, fast, naive, fastLog, naiveLog, counter in
            let counted: (TreeState) -> T = { counter.count(id); return select($0) }
            let erased: (TreeState) -> AnyHashable? = { AnyHashable(select($0)) }
            switch shape {
            case .oldNew, .optionalOldNew, .optionalOldNonNilNew:
                naive.add(id: id, baselineIsNil: false, select: erased) { old, new in naiveLog.append(id, old ?? nil, new) }
                return fast.add(counted) { (old: T?, new: T) in fastLog.append(id, old, new) }
            case .new, .optionalNew:
                naive.add(id: id, baselineIsNil: false, select: erased) { _, new in naiveLog.append(id, nil, new) }
                return fast.add(counted) { (new: T) in fastLog.append(id, nil, new) }
            case .strictOldNew:
                naive.add(id: id, baselineIsNil: false, select: erased) { old, new in
                    if case .some(let old) = old { naiveLog.append(id, old, new) }
                }
                return fast.add(counted) { (old: T, new: T) in fastLog.append(id, old, new) }
            case .predict, .predictNonNilNew:
                return registerPredict(shape, id, fast, naive, fastLog, naiveLog, counted: { Optional(counted($0)) }, erased: erased)
            }
        }
    }

    static func optional<T: Hashable>(_ name: String, _ select: @escaping (TreeState) -> T?) -> SelectorSpec {
        SelectorSpec(name: name, optional: true) { shape, id, fast, naive, fastLog, naiveLog, counter in
            let counted: (TreeState) -> T? = { counter.count(id); return select($0) }
            let erased: (TreeState) -> AnyHashable? = { select($0).map { AnyHashable($0) } }
            switch shape {
            case .oldNew, .optionalOldNew, .strictOldNew:
                naive.add(id: id, baselineIsNil: true, select: erased) { old, new in naiveLog.append(id, old ?? nil, new) }
                return fast.add(counted) { (old: T?, new: T?) in fastLog.append(id, old, new) }
            case .new, .optionalNew:
                naive.add(id: id, baselineIsNil: true, select: erased) { _, new in naiveLog.append(id, nil, new) }
                return fast.add(counted) { (new: T?) in fastLog.append(id, nil, new) }
            case .optionalOldNonNilNew:
                naive.add(id: id, baselineIsNil: true, select: erased) { old, new in
                    if let new { naiveLog.append(id, old ?? nil, new) }
                }
                return fast.add(counted) { (old: T?, new: T) in fastLog.append(id, old, new) }
            case .predict, .predictNonNilNew:
                return registerPredict(shape, id, fast, naive, fastLog, naiveLog, counted: counted, erased: erased)
            }
        }
    }

    /// A consumer of a versioned list that gets the structural diff
    /// (`add(_:_:)` with `(old, new, changes)`), under every shape. The fast
    /// side logs the lists as arrays, like the naive side, and logs a
    /// distinct event if applying `changes` to the old rows does not give
    /// the new ones.
    static func listChanges<E: Hashable>(_ name: String, _ select: @escaping (TreeState) -> VersionedList<E>) -> SelectorSpec {
        SelectorSpec(name: name, optional: false) { _, id, fast, naive, fastLog, naiveLog, counter in
            let counted: (TreeState) -> VersionedList<E> = { counter.count(id); return select($0) }
            naive.add(id: id, baselineIsNil: false, select: { AnyHashable(Array(select($0))) }) { old, new in
                naiveLog.append(id, old ?? nil, new)
            }
            return fast.add(counted) { (old: VersionedList<E>?, new: VersionedList<E>, changes: VersionedListChanges) in
                var rows: [E] = []
                if let old { rows = Array(old) }
                // Checked step by step, so a bad diff is a logged mismatch
                // (with the seed), not a trap inside `apply`.
                var count = rows.count
                var valid = changes.removed == changes.removed.sorted() && Set(changes.removed).count == changes.removed.count
                for offset in changes.removed.reversed() where valid { valid = offset < count; count -= 1 }
                for offset in changes.inserted where valid { valid = offset <= count; count += 1 }
                valid = valid && count == new.count && changes.updated.allSatisfy { $0 < new.count }
                if !valid {
                    fastLog.append(id, "offsets out of range: \(changes) old \(rows) new \(Array(new))", AnyHashable(Array(new)))
                    return
                }
                changes.apply(to: &rows, from: new)
                if rows != Array(new) {
                    fastLog.append(id, "changes do not turn old into new: \(changes)", AnyHashable(Array(new)))
                } else {
                    fastLog.append(id, old.map { AnyHashable(Array($0)) }, AnyHashable(Array(new)))
                }
            }
        }
    }

    /// Predicted consumers; the predicate takes values within one of each
    /// other as the same (reflexive, not transitive) for integers, `==`
    /// otherwise.
    private static func registerPredict<T: Hashable>(
        _ shape: CallbackShape, _ id: Int, _ fast: StateConsumer<TreeState>, _ naive: NaiveConsumer<TreeState>,
        _ fastLog: EventLog, _ naiveLog: EventLog, counted: @escaping (TreeState) -> T?,
        erased: @escaping (TreeState) -> AnyHashable?
    ) -> ConsumerHandle<TreeState> {
        let predict: (T?, T?) -> Bool = { old, new in
            if let old = old as? Int, let new = new as? Int { return abs(old - new) <= 1 }
            return old == new
        }
        let same: (AnyHashable?, AnyHashable?) -> Bool = { old, new in
            predict(old.map { $0.base as! T }, new.map { $0.base as! T })
        }
        if shape == .predict {
            naive.add(id: id, baselineIsNil: true, select: erased, same: same) { old, new in naiveLog.append(id, old ?? nil, new) }
            return fast.add(counted, { (old: T?, new: T?) in fastLog.append(id, old, new) }, predict: predict)
        } else {
            naive.add(id: id, baselineIsNil: true, select: erased, same: same) { old, new in
                if let new { naiveLog.append(id, old ?? nil, new) }
            }
            return fast.add(counted, { (old: T?, new: T) in fastLog.append(id, old, new) }, predict: predict)
        }
    }
}

/// Counts selector invocations per consumer id.
final class SelectorCounter {
    var counts: [Int: Int] = [:]
    func count(_ id: Int) { counts[id, default: 0] += 1 }
    var total: Int { counts.values.reduce(0, +) }
}

/// Every selector the differential test draws from: one leaf, a node as
/// selection, a whole node's value, derived values (a count, a sum), two
/// leaves, a node reached through a plain struct, optional selections, a
/// version, selectors that read nothing versioned, nodes inside containers,
/// reflection and other public reads, and a `didSet`-maintained sibling.
var treeSelectors: [SelectorSpec] { [
    .plain("count") { $0.count },
    .optional("name") { $0.name },
    .plain("m1.y") { $0.m1.y },
    .plain("m2.inner.x") { $0.m2.inner.x },
    .plain("m1.inner.left.a") { $0.m1.inner.left.a },
    .plain("m2.inner.left.a") { $0.m2.inner.left.a },
    .plain("m1.inner.right.b") { $0.m1.inner.right.b },
    .plain("m2.inner.right") { $0.m2.inner.right },          // a node
    .plain("m1.inner") { $0.m1.inner },                      // a node with nodes
    .plain("m2") { $0.m2 },                                  // a node, three levels
    .plain("leaf") { $0.leaf },
    .plain("m1.inner.value") { $0.m1.inner.value },          // a whole value
    .plain("state.value") { $0.value },                      // the whole state
    .plain("m1.leaves.count") { $0.m1.leaves.count },        // derived
    .plain("sum m2.leaves.a") { $0.m2.leaves.reduce(0) { $0 + $1.a } },
    .plain("m1.left.a + m2.right.b") { $0.m1.inner.left.a * 10 + $0.m2.inner.right.b },  // two leaves
    .plain("[m1.pair.node.b, leaf.a]") { [$0.m1.pair.node.b, $0.leaf.a] },
    .plain("m2.pair") { $0.m2.pair },                        // plain struct holding a node
    .optional("m1.leaves.first?.a") { $0.m1.leaves.first?.a },
    .optional("m2.leaves.last") { $0.m2.leaves.last },       // optional node
    .plain("leaf.version") { $0.leaf.version },
    .plain("constant") { _ in 42 },                          // reads nothing versioned
    .plain("nodeID only") { $0.m1.nodeID },                  // reads no contents
    .plain("m1.leaves") { $0.m1.leaves },                    // array of nodes
    .plain("m1.inner.left.a via value") { $0.m1.value.inner.left.a },
    .plain("m1[\\.pair.tag]") { $0.m1[dynamicMember: \TreeMid.pair.tag] },    // a nested key path
    .plain("m2[\\.pair.node].b") { $0.m2[dynamicMember: \TreeMid.pair.node].b },
    .plain("m1.pair.tag") { $0.m1.pair.tag },
    .plain("m1.list[1]") { $0.m1.list[1] },                  // one element of a versioned list
    .plain("m2.list[0] + m2.list[1]") { $0.m2.list[0] + $0.m2.list[1] },
    .plain("m1.list") { $0.m1.list },                        // a whole list
    .plain("m2.list.count") { $0.m2.list.count },
    .plain("m1.list.isEmpty") { $0.m1.list.isEmpty },          // a list's structure
    .plain("m2.list.indices") { $0.m2.list.indices },
    .optional("m1.list.last") { $0.m1.list.last },             // its structure and one element
    .plain("m2.rows.endIndex") { $0.m2.rows.endIndex },
    .plain("m1.rows[1].a") { $0.m1.rows[1].a },              // through a list of nodes into one
    .plain("m2.rows[0]") { $0.m2.rows[0] },                  // a node element as the selection
    .plain("m1.rows.count") { $0.m1.rows.count },
    .plain("sum m2.rows.a") { $0.m2.rows.reduce(0) { $0 + $1.a } },
    .listChanges("m1.list with changes") { $0.m1.list },      // the diff handed to the callback
    .listChanges("m2.rows with changes") { $0.m2.rows },
    // A node inside a container as the selection (the container's `==`
    // short-circuits on its own shared storage).
    .plain("[leaf]") { [$0.leaf] },
    .plain("[k: m1.inner.left]") { ["k": $0.m1.inner.left] },
    .plain("TreeLeafBundle(count, [leaf, m2.inner.right])") { TreeLeafBundle(tag: $0.count, leaves: [$0.leaf, $0.m2.inner.right]) },
    .plain("VersionedList([leaf])") { VersionedList([$0.leaf]) },
    .plain("[m2.rows[1]]") { [$0.m2.rows[1]] },
    // Public reads of versioned values: debug descriptions, Mirror,
    // underestimatedCount, difference(from:).
    .plain("String(reflecting: m2.leaves.last)") { String(reflecting: $0.m2.leaves.last) },
    .plain("String(reflecting: leaf)") { String(reflecting: $0.leaf) },
    .plain("m1.rows[0].debugDescription") { $0.m1.rows[0].debugDescription },
    .plain("Mirror of m1.inner") { reflectedDescription($0.m1.inner) },
    .plain("Mirror children of leaf") { Mirror(reflecting: $0.leaf).children.map { "\($0.label ?? "_")=\(reflectedDescription($0.value))" }.joined(separator: ";") },
    .plain("m1.list.underestimatedCount") { $0.m1.list.underestimatedCount },
    .plain("m2.rows.underestimatedCount") { $0.m2.rows.underestimatedCount },
    .plain("m1.list.difference(from: m2.list).isEmpty") { $0.m1.list.difference(from: $0.m2.list).isEmpty },
    // A sibling maintained by a child node's `didSet`.
    .plain("leafCache") { $0.leafCache },
] }
