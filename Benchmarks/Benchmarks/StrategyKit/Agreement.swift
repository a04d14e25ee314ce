import BenchCore
/// The cross-strategy check (`fsbench --self-test` and StrategyKitTests):
/// every strategy runs the same workload one action at a time, and what its
/// consumers received is compared with full-copy's, kind of consumer by
/// kind of consumer, and its final state with full-copy's.
///
/// - Strategies that compare values (``BenchStrategy/comparesValues``)
///   must deliver exactly full-copy's callbacks with the same values.
/// - Observation strategies are called for any write to what a consumer
///   read, so they must deliver at least as many callbacks of each kind;
///   except the lazy list screen (``ObservationLazyStrategy``), which must
///   match ``LazyListReference`` exactly.
/// - ``FastStoreLazyStrategy``'s list screen (and ``FastStoreMainLazyStrategy``'s)
///   must deliver exactly
///   ``LazyListReference/rowChanges(_:actions:)``; its other consumers,
///   exactly full-copy's.
/// - Every strategy must end with full-copy's state (``ContentDigest``):
///   the same items in the same order with the same fields.
public enum Agreement {
    /// What one strategy's consumers received after attaching, and its final state.
    public struct Run: Sendable {
        public var strategy: String
        public var comparesValues: Bool
        public var received: Sink.ByKind
        public var content: Int
    }

    /// Runs `strategy` on `actions` of `workload`, waiting after each.
    public static func run(_ strategy: any BenchStrategy.Type, _ workload: Workload, actions: ArraySlice<WorkloadAction>) -> Run {
        let subject = strategy.make(workload)
        subject.attachConsumers()
        // Callbacks from attaching (a first delivery) do not count.
        let attached = subject.sink.byKind
        for action in actions {
            subject.dispatch(action)
            subject.waitUntilIdle()
        }
        return Run(strategy: strategy.name, comparesValues: strategy.comparesValues,
                   received: subject.sink.byKind - attached, content: subject.contentDigest())
    }

    /// Runs every strategy in `strategies` and returns one line per
    /// disagreement with full-copy (which must be among them); none when
    /// all agree.
    public static func disagreements(_ strategies: [any BenchStrategy.Type], _ workload: Workload, actions: ArraySlice<WorkloadAction>) -> (reference: Sink.ByKind, problems: [String]) {
        let runs = strategies.map { run($0, workload, actions: actions) }
        guard let reference = runs.first(where: { $0.strategy == FullCopyStrategy.name }) else {
            preconditionFailure("Agreement needs the full-copy strategy as its reference")
        }
        var problems: [String] = []
        for r in runs where r.strategy != reference.strategy {
            if r.content != reference.content {
                problems.append("\(r.strategy) ends with a different state than full-copy (items, order, fields, counter or tree)")
            }
            for kind in SelectKind.allCases {
                let got = r.received[kind], want = reference.received[kind]
                if r.strategy == ObservationLazyStrategy.name, kind == .list {
                    let rule = LazyListReference.totals(workload, actions: actions)
                    if got != rule {
                        problems.append("\(r.strategy): list screen \(describe(got)), its rule says \(describe(rule))")
                    }
                } else if r.strategy == FastStoreLazyStrategy.name || r.strategy == FastStoreMainLazyStrategy.name,
                          kind == .list {
                    let rule = LazyListReference.rowChanges(workload, actions: actions)
                    if got != rule {
                        problems.append("\(r.strategy): list screen \(describe(got)), its rule says \(describe(rule))")
                    }
                } else if r.comparesValues {
                    if got != want {
                        problems.append("\(r.strategy): \(kind.rawValue) consumers \(describe(got)), full-copy \(describe(want))")
                    }
                } else if got.callbacks < want.callbacks {
                    problems.append("\(r.strategy): \(kind.rawValue) consumers got \(got.callbacks) callbacks, fewer than full-copy's \(want.callbacks)")
                }
            }
        }
        return (reference.received, problems)
    }

    /// What the row consumers of a workload that only removes, moves, sorts
    /// and inserts items (no field writes) must receive: one "absent" per
    /// watched entity removed, nothing else.
    public static func removalRule(_ workload: Workload, actions: ArraySlice<WorkloadAction>) -> Sink.Totals {
        var watched = Set<Int>()
        for case .entity(let id) in workload.selections { watched.insert(id) }
        let sink = Sink()
        for action in actions {
            guard case .removeEntities(let ids) = action.kind else { continue }
            for id in ids where watched.remove(id) != nil {
                // One callback per consumer of that id.
                for case .entity(id) in workload.selections { sink.deliver(Digest.absent, .entity) }
            }
        }
        return sink.byKind[.entity]
    }

    static func describe(_ t: Sink.Totals) -> String { "\(t.callbacks) callbacks (checksum \(t.checksum))" }
}
