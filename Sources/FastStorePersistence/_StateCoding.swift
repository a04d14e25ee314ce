import FastStore
import Foundation

/// How a state file's snapshot and log patches are encoded: the one home of
/// that rule, for the open, the saver and migrations.
///
/// A blob written by this version is FastStore's binary value encoding
/// (`_StateBytes`: the format a history's packed patches use), behind a
/// two-byte mark: `0xFA`, which no JSON text starts with (it is no UTF-8
/// lead byte), then the encoding's version, `1`. A blob without the mark
/// is JSON: what files of format `1` hold throughout, and what this version
/// still writes for a state the binary encoding refuses (an unsigned
/// integer above `Int64.max`, which JSON writes as a number). Every blob
/// says what it is, so that a file may hold both while an old file is
/// upgraded.
///
/// The saved history (`faststore_history`) stays JSON.
enum _StateCoding {
    /// The mark a binary blob starts with.
    static let binaryMark: [UInt8] = [0xFA, 0x01]

    /// Whether `blob` is binary (it starts with the mark).
    static func isBinary(_ blob: Data) -> Bool {
        blob.count >= binaryMark.count && blob.prefix(binaryMark.count).elementsEqual(binaryMark)
    }

    /// `state`, binary when the binary encoding takes it and its bytes
    /// decode again as `S`, JSON otherwise.
    ///
    /// NB: the decoding is the check that the snapshot written (which
    /// replaces the file's earlier one and its log) opens: a `Codable`
    /// conformance may read what it wrote in a way the binary decoder does
    /// not take (a `superDecoder()` for a key it never wrote, say).
    ///
    /// - Complexity: O(the state's size): an encoding and a decoding.
    /// - Throws: what encoding the state as JSON throws.
    static func encode<S: Codable>(_ state: S) throws -> Data {
        if let bytes = try? _StateBytes.encode(state),
           (try? bytes.withUnsafeBytes({ try _StateBytes.decode(S.self, from: $0) })) != nil {
            var blob = Data(capacity: binaryMark.count + bytes.count)
            blob.append(contentsOf: binaryMark)
            blob.append(contentsOf: bytes)
            return blob
        }
        return try JSONEncoder().encode(state)
    }

    /// The state a snapshot blob holds.
    ///
    /// - Complexity: O(the blob's size).
    /// - Throws: the decoder's `DecodingError`.
    static func decode<S: Decodable>(_ type: S.Type, from blob: Data) throws -> S {
        guard isBinary(blob) else { return try JSONDecoder().decode(S.self, from: blob) }
        return try blob.withUnsafeBytes { buffer in
            try _StateBytes.decode(S.self, from: UnsafeRawBufferPointer(rebasing: buffer[binaryMark.count...]))
        }
    }

    /// `patch`, binary (every patch value fits the binary encoding).
    ///
    /// - Complexity: O(the patch's size).
    static func encode<S>(_ patch: StatePatch<S>) -> Data {
        var blob = Data(binaryMark)
        blob.append(contentsOf: _StateBytes.pack(patch))
        return blob
    }

    /// The patch a log blob holds.
    ///
    /// - Complexity: O(the blob's size).
    /// - Throws: what is wrong with the blob: JSON's `DecodingError`, or
    ///   where and how the binary bytes are not a patch.
    static func decode<S>(_ type: StatePatch<S>.Type, from blob: Data) throws -> StatePatch<S> {
        guard isBinary(blob) else { return try JSONDecoder().decode(StatePatch<S>.self, from: blob) }
        return try blob.withUnsafeBytes { buffer in
            try _StateBytes.unpack(StatePatch<S>.self, from: UnsafeRawBufferPointer(rebasing: buffer[binaryMark.count...]))
        }
    }
}
