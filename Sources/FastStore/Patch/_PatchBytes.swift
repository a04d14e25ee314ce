// A compact in-memory form of a patch's operations, for what a
// `StoreHistory` with `.patches` storage keeps per entry: one byte array
// instead of an array of operations, an array of path components per
// operation and the values' own storage (about a quarter of the bytes for
// a one-row change). Not a file format: it is never written anywhere, and
// only this file reads what it writes.
//
// Layout: operations one after another. A set is tag 0, its path, then the
// old and new values (each optional); an edit is tag 1, its path, then the
// removed and inserted entries (count, then offset, optional id, value).
// A path is its component count, then per component a tag (field, index,
// id, key) and its payload. A value is a tag byte and its payload; an
// absent optional value is the tag `absent`. Integers are zigzag varints,
// doubles their 8 bytes, strings a varint length and UTF-8.

internal enum _PatchBytes {
    private enum Tag: UInt8 {
        case absent = 0, null, `false`, `true`, int, double, string, array, object
        case set = 16, edit
        case field = 32, index, id, key
    }

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
                write(old, into: &bytes)
                write(new, into: &bytes)
            case .edit(let path, let removed, let inserted):
                bytes.append(Tag.edit.rawValue)
                write(path, into: &bytes)
                write(removed, into: &bytes)
                write(inserted, into: &bytes)
            }
        }
        return bytes
    }

    /// The operations `pack` packed into `bytes`.
    ///
    /// - Complexity: O(size of the operations).
    static func unpack(_ bytes: [UInt8]) -> [PatchOperation] {
        var operations: [PatchOperation] = []
        unpack(bytes, into: &operations)
        return operations
    }

    /// The operations of several packed patches one after the other, or
    /// (`inverted`) the inverse of that: the last patch's undone first.
    ///
    /// - Complexity: O(size of the operations).
    static func unpack(_ patches: [[UInt8]], inverted: Bool) -> [PatchOperation] {
        var operations: [PatchOperation] = []
        operations.reserveCapacity(patches.count)
        for bytes in patches { unpack(bytes, into: &operations) }
        guard inverted else { return operations }
        operations.reverse()
        for k in operations.indices { operations[k] = operations[k].inverted }
        return operations
    }

    private static func unpack(_ bytes: [UInt8], into operations: inout [PatchOperation]) {
        var reader = Reader(bytes: bytes)
        while !reader.isAtEnd {
            let tag = reader.tag()
            let path = reader.path()
            switch tag {
            case .set: operations.append(.set(path: path, old: reader.value(), new: reader.value()))
            case .edit: operations.append(.edit(path: path, removed: reader.entries(), inserted: reader.entries()))
            default: reader.corrupt(tag)
            }
        }
    }

    // MARK: Writing

    private static func write(_ path: PatchPath, into bytes: inout [UInt8]) {
        writeInt(path.components.count, into: &bytes)
        for component in path.components {
            switch component {
            case .field(let name):
                bytes.append(Tag.field.rawValue)
                writeString(name, into: &bytes)
            case .index(let i):
                bytes.append(Tag.index.rawValue)
                writeInt(i, into: &bytes)
            case .id(let value):
                bytes.append(Tag.id.rawValue)
                write(value, into: &bytes)
            case .key(let value):
                bytes.append(Tag.key.rawValue)
                write(value, into: &bytes)
            }
        }
    }

    private static func write(_ entries: [PatchListEntry], into bytes: inout [UInt8]) {
        writeInt(entries.count, into: &bytes)
        for entry in entries {
            writeInt(entry.offset, into: &bytes)
            write(entry.id, into: &bytes)
            write(entry.value, into: &bytes)
        }
    }

    private static func write(_ value: PatchValue?, into bytes: inout [UInt8]) {
        guard let value else {
            bytes.append(Tag.absent.rawValue)
            return
        }
        switch value {
        case .null: bytes.append(Tag.null.rawValue)
        case .bool(let b): bytes.append(b ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let i):
            bytes.append(Tag.int.rawValue)
            writeInt64(i, into: &bytes)
        case .double(let d):
            bytes.append(Tag.double.rawValue)
            var bits = d.bitPattern
            for _ in 0 ..< 8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        case .string(let s):
            bytes.append(Tag.string.rawValue)
            writeString(s, into: &bytes)
        case .array(let elements):
            bytes.append(Tag.array.rawValue)
            writeInt(elements.count, into: &bytes)
            for element in elements { write(element, into: &bytes) }
        case .object(let fields):
            bytes.append(Tag.object.rawValue)
            writeInt(fields.count, into: &bytes)
            for (key, field) in fields {
                writeString(key, into: &bytes)
                write(field, into: &bytes)
            }
        }
    }

    private static func writeString(_ string: String, into bytes: inout [UInt8]) {
        let utf8 = string.utf8
        writeInt(utf8.count, into: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func writeInt(_ value: Int, into bytes: inout [UInt8]) { writeInt64(Int64(value), into: &bytes) }

    private static func writeInt64(_ value: Int64, into bytes: inout [UInt8]) {
        var zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while zigzag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
            zigzag >>= 7
        }
        bytes.append(UInt8(zigzag))
    }

    // MARK: Reading

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        func corrupt(_ tag: Tag) -> Never {
            preconditionFailure("FastStore: internal error: a packed patch has tag \(tag) at byte \(position)")
        }

        mutating func byte() -> UInt8 {
            precondition(position < bytes.count, "FastStore: internal error: a packed patch ends early")
            defer { position += 1 }
            return bytes[position]
        }

        mutating func tag() -> Tag {
            let raw = byte()
            guard let tag = Tag(rawValue: raw) else {
                preconditionFailure("FastStore: internal error: a packed patch has an unknown tag \(raw) at byte \(position - 1)")
            }
            return tag
        }

        mutating func int64() -> Int64 {
            var zigzag: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = byte()
                zigzag |= UInt64(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        }

        mutating func int() -> Int { Int(int64()) }

        mutating func string() -> String {
            let count = int()
            precondition(count >= 0 && position + count <= bytes.count, "FastStore: internal error: a packed patch ends early")
            defer { position += count }
            return String(decoding: bytes[position ..< position + count], as: UTF8.self)
        }

        mutating func path() -> PatchPath {
            let count = int()
            var components: [PatchPath.Component] = []
            components.reserveCapacity(count)
            for _ in 0 ..< count {
                switch tag() {
                case .field: components.append(.field(string()))
                case .index: components.append(.index(int()))
                case .id: components.append(.id(value()!))
                case .key: components.append(.key(value()!))
                case let other: corrupt(other)
                }
            }
            return PatchPath(components)
        }

        mutating func entries() -> [PatchListEntry] {
            let count = int()
            var entries: [PatchListEntry] = []
            entries.reserveCapacity(count)
            for _ in 0 ..< count {
                let offset = int()
                let id = value()
                entries.append(PatchListEntry(offset: offset, id: id, value: value()!))
            }
            return entries
        }

        mutating func value() -> PatchValue? {
            switch tag() {
            case .absent: return nil
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .int: return .int(int64())
            case .double:
                var bits: UInt64 = 0
                for k in 0 ..< 8 { bits |= UInt64(byte()) << (8 * UInt64(k)) }
                return .double(Double(bitPattern: bits))
            case .string: return .string(string())
            case .array:
                let count = int()
                var elements: [PatchValue] = []
                elements.reserveCapacity(count)
                for _ in 0 ..< count { elements.append(value()!) }
                return .array(elements)
            case .object:
                let count = int()
                var fields: [String: PatchValue] = [:]
                fields.reserveCapacity(count)
                for _ in 0 ..< count {
                    let key = string()
                    fields[key] = value()!
                }
                return .object(fields)
            case let other: corrupt(other)
            }
        }
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
