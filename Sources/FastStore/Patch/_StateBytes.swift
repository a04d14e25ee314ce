/// A state and its patches in the binary value encoding (`_ValueBytes`):
/// what `FastStorePersistence` writes to a file, one format for the
/// snapshot and the log.
///
/// Not API: the package's entry point to the encoders.
package enum _StateBytes {
    /// `value` in the binary value encoding.
    ///
    /// - Complexity: O(size of the value).
    /// - Throws: what the value's `encode(to:)` throws;
    ///   `EncodingError.invalidValue` for an unsigned integer above
    ///   `Int64.max`.
    package static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try _BinaryEncoder.encode(value)
    }

    /// The value of type `T` that `bytes` (all of them) encode.
    ///
    /// - Complexity: O(size of the value).
    /// - Throws: `DecodingError` naming the coding path: bytes that are not
    ///   a value (`dataCorrupted`, with the byte), or a value of another
    ///   shape, as any decoder reports it.
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        try _BinaryDecoding.decode(T.self, from: bytes)
    }

    /// `patch`'s operations, packed.
    ///
    /// - Complexity: O(size of the operations).
    package static func pack<State>(_ patch: StatePatch<State>) -> [UInt8] {
        _PatchBytes.pack(patch.operations)
    }

    /// The patch whose operations `pack(_:)` packed into `bytes`.
    ///
    /// - Complexity: O(size of the operations).
    /// - Throws: a description of where and how `bytes` are not a packed
    ///   patch.
    package static func unpack<State>(_ type: StatePatch<State>.Type, from bytes: UnsafeRawBufferPointer) throws -> StatePatch<State> {
        StatePatch(operations: try _PatchBytes.unpack(reading: bytes))
    }
}
