/// A versioned collection whose versions FastStore can diff structurally:
/// what a ``StateConsumer`` needs to hand a collection consumer its changes
/// (`consumer.add({ $0.rows }) { old, new, changes in … }`), with one code
/// path for every collection.
///
/// ``VersionedList``, ``IdentifiedList`` and ``VersionedDictionary`` conform.
/// As for ``VersionedValue``, conformance is for FastStore's own types.
public protocol VersionedCollection: VersionedValue {
    /// What changed between two versions.
    associatedtype Changes: VersionedCollectionChanges
    /// An empty collection with a new identity (the diff of a first
    /// selection is taken from it).
    init()
    /// The changes that turn `older` into this collection. Records a read of
    /// both whole collections.
    func difference(from older: Self) -> Changes
}

/// The changes between two versions of a ``VersionedCollection``.
public protocol VersionedCollectionChanges {
    /// Whether nothing changed.
    var isEmpty: Bool { get }
}

extension VersionedList: VersionedCollection {}
extension IdentifiedList: VersionedCollection {}
extension VersionedDictionary: VersionedCollection {}
extension VersionedListChanges: VersionedCollectionChanges {}
extension IdentifiedListChanges: VersionedCollectionChanges {}
extension VersionedDictionaryChanges: VersionedCollectionChanges {}
