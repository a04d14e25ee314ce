/// A strategy's name and what it is, known without building it.
public struct StrategyInfo: Sendable, Equatable {
    /// The name used on the command line and in the results (no spaces).
    public let name: String
    /// One line for the docs and `--list`.
    public let summary: String
}

/// The strategies `fsbench` measures, by name, in the order of its tables.
///
/// StrategyKit's strategies take their names and summaries from here, so
/// that `fsbench-lite` (`--list`, `--validate`, no FastStore) knows them
/// too; a test checks that both list the same strategies in the same order.
public enum StrategyCatalog {
    public static let fullCopy = StrategyInfo(name: "full-copy", summary: "keeps the previous state; runs every selector on old and new and compares with ==")
    public static let reswiftLike = StrategyInfo(name: "reswift-like", summary: "subscriber per selection with skip-repeats; reducer returns a new state")
    public static let fullCopyPersistent = StrategyInfo(name: "full-copy-persistent", summary: "ablation: full-copy's consumer (keep old state, every selector, ==) over faststore's persistent versioned state")
    public static let fastStore = StrategyInfo(name: "faststore", summary: "FastStore Store + Versioned/VersionedList (IdentifiedList when rows move) state + one StateConsumer per screen, each connected to the store (skips unchanged nodes)")
    public static let fastStoreShared = StrategyInfo(name: "faststore-shared", summary: "faststore with every screen's selector in one shared StateConsumer connected to the store (one subscription in all)")
    public static let fastStoreLazy = StrategyInfo(name: "faststore-lazy", summary: "faststore with a lazy list screen, as observation-lazy's: it selects the row count (the ids when rows move), which a row's change does not wake")
    public static let fastStorePlain = StrategyInfo(name: "faststore-plain", summary: "FastStore Store + StateConsumer over plain value state (no versioned nodes: every selector runs, compared with the last selection)")
    public static let observation = StrategyInfo(name: "observation", summary: "@Observable classes + withObservationTracking, re-registered after each change; the list screen reads every row")
    public static let observationLazy = StrategyInfo(name: "observation-lazy", summary: "Observation as a lazy List: rows track their own object, the list screen tracks only the list's identity, count and order")

    public static let fastStoreMain = StrategyInfo(name: "faststore-main", summary: "faststore on a MainStore (the store for a UI: reduced on the main thread, written in place; other threads' dispatches queued and drained there) instead of a Store")

    public static let fastStoreMainLazy = StrategyInfo(name: "faststore-main-lazy", summary: "faststore-lazy on a MainStore: the lazy list screen, as observation-lazy's, on the store for a UI (observation-lazy's like for like)")

    public static let all = [fullCopy, reswiftLike, fullCopyPersistent, fastStore, fastStoreMain, fastStoreShared, fastStoreLazy, fastStoreMainLazy, fastStorePlain, observation, observationLazy]
    public static var names: [String] { all.map(\.name) }
    public static func named(_ name: String) -> StrategyInfo? { all.first { $0.name == name } }
}
