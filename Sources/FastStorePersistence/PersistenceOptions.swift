import Foundation

/// How a ``PersistentState`` saves.
public struct PersistenceOptions: Sendable {
    /// When a published batch is written.
    public enum Durability: Sendable, Equatable {
        /// As soon as the saver is free: each write commits the batches
        /// published since the previous one (one transaction, synced to
        /// disk).
        case everyBatch
        /// At most once per interval: batches published within it are
        /// grouped into one write. ``PersistentState/flush()`` writes at once.
        case grouped(Duration)
    }

    /// When a published batch is written (default ``Durability/everyBatch``).
    public var durability: Durability
    /// How many saved patches the log holds before the saver writes a new
    /// snapshot of the whole state and empties the log (default 1,000).
    /// Opening replays the log, so this bounds the time to open.
    public var compactAfter: Int
    /// The version of `State`'s `Codable` shape, stored with the state
    /// (default 1): raise it when the shape changes. A file saved with
    /// another version opens through the ``PersistentState/Migration`` given
    /// for it, and is refused without one, before anything is decoded, with
    /// ``PersistentStateError/versionMismatch(path:saved:expected:)``.
    public var version: Int
    /// Called on the saver's thread when a save fails (the store keeps
    /// working; the save is retried) and when saving resumes (`nil`); and
    /// when a history is saved cut
    /// (``PersistentStateError/historyCut(path:kept:reason:)``, which no
    /// `nil` follows: saving works).
    public var onSaveFailure: (@Sendable (PersistentStateError?) -> Void)?
    /// How long the saver waits before retrying a failed save (default 1 s).
    public var retryDelay: Duration
    /// Faults injected into the open (tests only).
    package var _openFaults = _OpenFaults()

    public init(
        durability: Durability = .everyBatch,
        compactAfter: Int = 1_000,
        version: Int = 1,
        onSaveFailure: (@Sendable (PersistentStateError?) -> Void)? = nil,
        retryDelay: Duration = .seconds(1)
    ) {
        self.durability = durability
        self.compactAfter = compactAfter
        self.version = version
        self.onSaveFailure = onSaveFailure
        self.retryDelay = retryDelay
    }
}
