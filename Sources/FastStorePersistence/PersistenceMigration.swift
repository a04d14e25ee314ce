import FastStore
import Foundation

extension PersistentState {
    /// How to open a file saved with an earlier version of the state's
    /// `Codable` shape: the type the state had then, and how to make the
    /// current state of it.
    ///
    /// ```swift
    /// let file = try PersistentState(
    ///     path: path,
    ///     options: PersistenceOptions(version: 2),
    ///     migrations: [.from(version: 1, TodoStateV1.self) { old in TodoState(migrating: old) }],
    ///     initial: TodoState())
    /// ```
    ///
    /// Opening a file of version `version` decodes its snapshot as `Old`,
    /// applies its log as `StatePatch<Old>` (the batches saved since the
    /// snapshot), converts the result, and rewrites the file as the current
    /// version in one transaction: a new snapshot, an empty log, the new
    /// version. Until that transaction commits the file is left as it was
    /// (a conversion that throws, an old state that does not decode, a
    /// crash); after it, the file is the current version. Keep the old type
    /// (renamed, as SwiftData keeps its `VersionedSchema` types) for as long
    /// as files of its version may exist.
    public struct Migration: Sendable {
        /// The version of the files this migration opens.
        public let version: Int
        let load: @Sendable (_ contents: _StateDatabase.Contents, _ path: String) throws(PersistentStateError) -> State

        /// A migration from the files of `version`, whose state was an `Old`.
        ///
        /// - Parameters:
        ///   - version: The ``PersistenceOptions/version`` the files were
        ///     saved with.
        ///   - old: The type the state had then (kept under another name).
        ///   - convert: Makes the current state of the old one. An error it
        ///     throws is reported as
        ///     ``PersistentStateError/migrationFailed(path:from:reason:)``,
        ///     and the file is left as it was.
        public static func from<Old: Codable & Sendable>(
            version: Int, _ old: Old.Type, convert: @escaping @Sendable (Old) throws -> State
        ) -> Migration {
            Migration(version: version) { contents, path throws(PersistentStateError) in
                let saved = try _replay(Old.self, contents, path: path)
                do {
                    return try convert(saved)
                } catch {
                    throw .migrationFailed(path: path, from: version, reason: "\(error)")
                }
            }
        }
    }
}

/// The state a file's contents hold: its snapshot decoded as `S`, then the
/// patches of its log applied.
///
/// The patches are applied as one (``StatePatch/compose(_:)``: one walk
/// per run of operations on unrelated paths, not one per patch). When that
/// throws, they are applied again one at a time, to name the batch whose
/// patch does not apply.
///
/// - Complexity: O(the snapshot's size + the log's operations × log n).
func _replay<S: Codable>(_ type: S.Type, _ contents: _StateDatabase.Contents, path: String) throws(PersistentStateError) -> S {
    let snapshot = try _decodeState(S.self, contents.snapshot, path: path)
    var patches: [StatePatch<S>] = []
    patches.reserveCapacity(contents.log.count)
    for entry in contents.log {
        do {
            patches.append(try _StateCoding.decode(StatePatch<S>.self, from: entry.patch))
        } catch {
            throw .damaged(path: path, table: "faststore_log", row: entry.row, reason: "the patch of batch \(entry.sequence) does not decode: \(error)")
        }
    }
    guard !patches.isEmpty else { return snapshot }
    if let state = try? StatePatch.compose(patches).apply(to: snapshot) { return state }
    var state = snapshot
    for (entry, patch) in zip(contents.log, patches) {
        do {
            state = try patch.apply(to: state)
        } catch let error as PatchError {
            throw .patchDoesNotApply(path: path, sequence: entry.sequence, error: error)
        } catch {
            throw .damaged(path: path, table: "faststore_log", row: entry.row, reason: "the patch of batch \(entry.sequence) does not apply: \(error)")
        }
    }
    // NB: reached only if the patches apply one at a time but not as one
    // (a fault of the composition, not of the file): the state is theirs.
    return state
}

/// A snapshot decoded as `S` (binary or JSON, ``_StateCoding``), a
/// decoding error named by its coding path.
func _decodeState<S: Decodable>(_ type: S.Type, _ data: Data, path: String) throws(PersistentStateError) -> S {
    do {
        return try _StateCoding.decode(S.self, from: data)
    } catch let error as DecodingError {
        let (codingPath, reason) = _describe(error)
        throw .stateDoesNotDecode(path: path, codingPath: codingPath, reason: reason)
    } catch {
        throw .stateDoesNotDecode(path: path, codingPath: "", reason: "\(error)")
    }
}

/// The coding path of a decoding error, written as Swift access
/// (`todos[3].title`), and what went wrong there.
func _describe(_ error: DecodingError) -> (String, String) {
    func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return text.isEmpty ? "<root>" : text
    }
    switch error {
    case .keyNotFound(let key, let context):
        return (render(context.codingPath + [key]), "no value for the key '\(key.stringValue)'")
    case .typeMismatch(let type, let context):
        return (render(context.codingPath), "expected \(type): \(context.debugDescription)")
    case .valueNotFound(let type, let context):
        return (render(context.codingPath), "expected \(type), found null")
    case .dataCorrupted(let context):
        return (render(context.codingPath), context.debugDescription)
    @unknown default:
        return ("<root>", "\(error)")
    }
}
