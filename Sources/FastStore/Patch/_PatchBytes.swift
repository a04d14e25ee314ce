// A compact in-memory form of a patch's operations, for what a
// `StoreHistory` with `.patches` storage keeps per entry: one byte array
// instead of an array of operations, an array of path components per
// operation and the values' own storage (about a quarter of the bytes for
// a one-row change), and what a saved file's log holds per batch. Values
// are in the encoding `_ValueBytes` describes.
//
// Layout: operations one after another. A set is the tag `set`, its path, then the
// old and new values (each optional); an edit is the tag `edit`, its path, then the
// removed and inserted entries (count, then offset, optional id, value).
// A path is its component count, then per component a tag (field, index,
// id, key) and its payload. An absent optional value is the tag `absent`.

internal enum _PatchBytes {
    private typealias Tag = _ValueBytes.Tag

    /// The operations, packed.
    ///
    /// - Complexity: O(size of the operations).
    static func pack(_ operations: [PatchOperation]) -> [UInt8] {
        var bytes: [UInt8] = []
        for operation in operations {
            switch operation {
            case .set(let path, let old, let new):
                bytes.append(Tag.set.rawValue)
                write(path, into: &bytes)
                _ValueBytes.append(old, to: &bytes)
                _ValueBytes.append(new, to: &bytes)
            case .edit(let path, let removed, let inserted):
                bytes.append(Tag.edit.rawValue)
                write(path, into: &bytes)
                write(removed, into: &bytes)
                write(inserted, into: &bytes)
            }
        }
        return bytes
    }

    /// The operations `pack` packed into `bytes`, which this process wrote.
    ///
    /// - Complexity: O(size of the operations).
    static func unpack(_ bytes: [UInt8]) -> [PatchOperation] {
        var operations: [PatchOperation] = []
        unpackWritten(bytes, into: &operations)
        return operations
    }

    /// The operations packed in `bytes` read from elsewhere (a file): bytes
    /// that are not a packed patch throw, naming where and what.
    ///
    /// - Complexity: O(size of the operations).
    static func unpack(reading bytes: UnsafeRawBufferPointer) throws(_ValueBytes.Damage) -> [PatchOperation] {
        var operations: [PatchOperation] = []
        try unpack(bytes, into: &operations)
        return operations
    }

    /// The operations of several packed patches one after the other, or
    /// (`inverted`) the inverse of that: the last patch's undone first.
    ///
    /// - Complexity: O(size of the operations).
    static func unpack(_ patches: [[UInt8]], inverted: Bool) -> [PatchOperation] {
        var operations: [PatchOperation] = []
        operations.reserveCapacity(patches.count)
        for bytes in patches { unpackWritten(bytes, into: &operations) }
        guard inverted else { return operations }
        operations.reverse()
        for k in operations.indices { operations[k] = operations[k].inverted }
        return operations
    }

    private static func unpackWritten(_ bytes: [UInt8], into operations: inout [PatchOperation]) {
        bytes.withUnsafeBytes { buffer in
            do {
                try unpack(buffer, into: &operations)
            } catch {
                preconditionFailure("FastStore: internal error: a packed patch does not read: \(error)")
            }
        }
    }

    private static func unpack(_ bytes: UnsafeRawBufferPointer, into operations: inout [PatchOperation]) throws(_ValueBytes.Damage) {
        var reader = _ValueBytes.Reader(bytes)
        while !reader.isAtEnd {
            let start = reader.position
            let tag = try reader.tag()
            let path = try readPath(&reader)
            switch tag {
            case .set: operations.append(.set(path: path, old: try reader.value(), new: try reader.value()))
            case .edit: operations.append(.edit(path: path, removed: try readEntries(&reader), inserted: try readEntries(&reader)))
            default: throw reader.damage("tag \(tag) where an operation belongs", at: start)
            }
        }
    }

    // MARK: Writing

    private static func write(_ path: PatchPath, into bytes: inout [UInt8]) {
        _ValueBytes.appendInt(Int64(path.components.count), to: &bytes)
        for component in path.components {
            switch component {
            case .field(let name):
                bytes.append(Tag.field.rawValue)
                _ValueBytes.appendString(name, to: &bytes)
            case .index(let i):
                bytes.append(Tag.index.rawValue)
                _ValueBytes.appendInt(Int64(i), to: &bytes)
            case .id(let value):
                bytes.append(Tag.id.rawValue)
                _ValueBytes.append(value, to: &bytes)
            case .key(let value):
                bytes.append(Tag.key.rawValue)
                _ValueBytes.append(value, to: &bytes)
            }
        }
    }

    private static func write(_ entries: [PatchListEntry], into bytes: inout [UInt8]) {
        _ValueBytes.appendInt(Int64(entries.count), to: &bytes)
        for entry in entries {
            _ValueBytes.appendInt(Int64(entry.offset), to: &bytes)
            _ValueBytes.append(entry.id, to: &bytes)
            _ValueBytes.append(entry.value, to: &bytes)
        }
    }

    // MARK: Reading

    private static func readPath(_ reader: inout _ValueBytes.Reader) throws(_ValueBytes.Damage) -> PatchPath {
        let count = try reader.length()
        var components: [PatchPath.Component] = []
        components.reserveCapacity(Swift.min(count, _ValueBytes.maximumReservation))
        for _ in 0 ..< count {
            let start = reader.position
            switch try reader.tag() {
            case .field: components.append(.field(try reader.string()))
            case .index: components.append(.index(try reader.int()))
            case .id: components.append(.id(try reader.presentValue()))
            case .key: components.append(.key(try reader.presentValue()))
            case let other: throw reader.damage("tag \(other) where a path component belongs", at: start)
            }
        }
        return PatchPath(components)
    }

    private static func readEntries(_ reader: inout _ValueBytes.Reader) throws(_ValueBytes.Damage) -> [PatchListEntry] {
        let count = try reader.length()
        var entries: [PatchListEntry] = []
        entries.reserveCapacity(Swift.min(count, _ValueBytes.maximumReservation))
        for _ in 0 ..< count {
            let offset = try reader.int()
            let id = try reader.value()
            entries.append(PatchListEntry(offset: offset, id: id, value: try reader.presentValue()))
        }
        return entries
    }
}

extension StatePatch {
    /// The patch packed as a history keeps it and unpacked again, and the
    /// packed size (tests of `_PatchBytes`).
    @_spi(Testing)
    public var _packedRoundTrip: (patch: StatePatch, byteCount: Int) {
        let bytes = _PatchBytes.pack(operations)
        return (StatePatch(operations: _PatchBytes.unpack(bytes)), bytes.count)
    }
}
