import FastStore

/// Strategy 3, FastStore: `Store` with an `inout` reducer over versioned
/// state (`Versioned` nodes, `VersionedList`s with per-element stamps) and a
/// `StateConsumer` fed from a store subscription. A consumer whose
/// selection read only unchanged nodes is skipped without running its
/// selector; a write copies only the nodes on its path.
public final class FastStoreStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = "faststore"
    public static let summary = "FastStore Store + Versioned/VersionedList state + StateConsumer (skips unchanged nodes)"

    private let workload: Workload
    private let store: Store<FSState, WorkloadAction>
    private let consumer = StateConsumer<FSState>()
    private var subscription: StoreSubscription?
    private let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        store = Store(state: FSState(workload), reducer: fastStoreReduce)
    }

    public func attachConsumers() {
        let sink = self.sink
        for selection in workload.selections {
            switch selection {
            case .field:
                consumer.add(counted { $0.counter }) { (_: Int, new: Int) in sink.deliver(Digest.of(new)) }
            case .entity(let k):
                consumer.add(counted { $0.items[k] }) { (_: Item, new: Item) in sink.deliver(Digest.of(new)) }
            case .list:
                consumer.add(counted { $0.items }) { (_: VersionedList<Item>, new: VersionedList<Item>) in sink.deliver(Digest.ofList(count: new.count)) }
            case .derived:
                consumer.add(counted { state -> Int in
                    var n = 0
                    for item in state.items where item.done { n += 1 }
                    return n
                }) { (_: Int, new: Int) in sink.deliver(Digest.of(new)) }
            case .treeLeaf(let path):
                consumer.add(counted { state -> Int in
                    var node = state.tree
                    for i in path { node = node.children[i] }
                    return node.number
                }) { (_: Int, new: Int) in sink.deliver(Digest.of(new)) }
            }
        }
        // Consumes the current state now (every consumer's baseline; no
        // callback in the `(old, new)` shape, as full-copy's first kept state),
        // then every state the store publishes, with its drain's changes.
        subscription = consumer.connect(to: store)
    }

    public func dispatch(_ action: WorkloadAction) {
        store.dispatch(action)
    }

    public func waitUntilIdle() {
        store.waitUntilIdle()
    }

    public var delivered: Sink.Totals { sink.current }
    public var evaluations: Int { sink.evaluations }

    /// `select`, counting its runs.
    private func counted<T>(_ select: @escaping (FSState) -> T) -> (FSState) -> T {
        let sink = self.sink
        return { state in
            sink.evaluated()
            return select(state)
        }
    }
}

/// The versioned state: the same shape and contents as ``AppState``.
public struct FSStateFields {
    public var items: VersionedList<Item>
    public var tree: Versioned<FSTreeFields>
    public var counter: Int
    public var title: String
}

public struct FSTreeFields {
    // NB: not `value`: `Versioned.value` is the node's whole value.
    public var number: Int
    public var label: String
    public var children: VersionedList<Versioned<FSTreeFields>>
}

public typealias FSState = Versioned<FSStateFields>

extension Versioned where Value == FSStateFields {
    init(_ workload: Workload) {
        let plain = AppState(workload)
        func convert(_ node: TreeNode) -> Versioned<FSTreeFields> {
            Versioned<FSTreeFields>(FSTreeFields(number: node.value, label: node.label, children: VersionedList(node.children.map(convert))))
        }
        self.init(FSStateFields(items: VersionedList(plain.items), tree: convert(plain.tree), counter: plain.counter, title: plain.title))
    }
}

/// The same reducer as ``reduce(_:_:)``, written against the versioned
/// state: the reducer text is unchanged (`state.items[i].done.toggle()`).
func fastStoreReduce(_ state: inout FSState, _ action: WorkloadAction) {
    switch action.kind {
    case .setField:
        state.counter &+= 1
    case .updateEntities(let field, let indices):
        for i in indices {
            switch field {
            case .done: state.items[i].done.toggle()
            case .count: state.items[i].count &+= 1
            case .title: state.items[i].title = action.title
            }
        }
    case .updateTreeLeaf(let path):
        updateVersionedLeaf(&state.tree, path[...])
    }
}

func updateVersionedLeaf(_ node: inout Versioned<FSTreeFields>, _ path: ArraySlice<Int>) {
    if let first = path.first {
        updateVersionedLeaf(&node.children[first], path.dropFirst())
    } else {
        node.number &+= 1
    }
}
