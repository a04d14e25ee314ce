// `_ValueDecoder`'s readers of standard library scalars, in place, and the
// errors it throws: a wrong tag is `typeMismatch`, bytes that are not a
// value `dataCorrupted`, each with the coding path and the byte.

extension _ValueDecoder {
    static func corrupted(_ path: [any CodingKey], _ reason: String, at position: Int) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "\(reason), at byte \(position)"))
    }

    static func corrupted(_ path: [any CodingKey], _ damage: _ValueBytes.Damage) -> DecodingError {
        corrupted(path, damage.reason, at: damage.position)
    }

    static func mismatch(_ type: Any.Type, _ path: [any CodingKey], found tag: UInt8, at position: Int) -> DecodingError {
        let found = _ValueBytes.Tag(rawValue: tag).map { "\($0)" } ?? "tag \(tag)"
        return DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "expected \(type), found \(found) at byte \(position)"))
    }

    /// `T` read at the reader when it is a standard library scalar; `nil`
    /// (the reader unmoved) otherwise.
    @inline(__always)
    static func scalar<T>(_ type: T.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> T? {
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, &reader, path), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try string(&reader, path), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(&reader, path), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(&reader, path), to: T.self) }
        if !_PatchDecoder.isScalar(T.self) { return nil }
        switch type {
        case is Float.Type:
            let start = reader.position
            let value = try double(&reader, path)
            let float = Float(value)
            guard float.isFinite || !value.isFinite else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(), debugDescription: "the number at byte \(start) does not fit in Float"))
            }
            return float as? T
        case is Int8.Type: return try integer(Int8.self, &reader, path) as? T
        case is Int16.Type: return try integer(Int16.self, &reader, path) as? T
        case is Int32.Type: return try integer(Int32.self, &reader, path) as? T
        case is Int64.Type: return try integer(Int64.self, &reader, path) as? T
        case is UInt.Type: return try integer(UInt.self, &reader, path) as? T
        case is UInt8.Type: return try integer(UInt8.self, &reader, path) as? T
        case is UInt16.Type: return try integer(UInt16.self, &reader, path) as? T
        case is UInt32.Type: return try integer(UInt32.self, &reader, path) as? T
        case is UInt64.Type: return try integer(UInt64.self, &reader, path) as? T
        default: return nil
        }
    }

    /// The value of type `R` (`expected`, in errors) at the reader: its tag, then what `read`
    /// reads after it (`nil`: the tag is not one `R` takes). A wrong tag is
    /// `typeMismatch`, bytes that are not a value `dataCorrupted`.
    @inline(__always)
    static func tagged<R>(
        _ expected: Any.Type, as type: R.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey],
        _ read: (UInt8, inout _ValueBytes.Reader) throws -> R?
    ) throws -> R {
        let start = reader.position
        do {
            let tag = try reader.byte()
            guard let value = try read(tag, &reader) else { throw mismatch(expected, path(), found: tag, at: start) }
            return value
        } catch let damage as _ValueBytes.Damage {
            throw corrupted(path(), damage)
        }
    }

    @inline(__always)
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> I {
        let start = reader.position
        let exact: I?? = try tagged(I.self, as: I?.self, &reader, path) { tag, reader in
            switch tag {
            case _ValueBytes.Tag.int.rawValue: return .some(I(exactly: try reader.int64()))
            case _ValueBytes.Tag.double.rawValue: return .some(I(exactly: try reader.double()))
            default: return nil
            }
        }
        guard let result = exact.flatMap({ $0 }) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(), debugDescription: "the number at byte \(start) does not fit in \(I.self)"))
        }
        return result
    }

    @inline(__always)
    static func string(_ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> String {
        try tagged(String.self, as: String.self, &reader, path) { tag, reader in
            tag == _ValueBytes.Tag.string.rawValue ? try reader.string() : nil
        }
    }

    @inline(__always)
    static func bool(_ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> Bool {
        try tagged(Bool.self, as: Bool.self, &reader, path) { tag, _ in
            switch tag {
            case _ValueBytes.Tag.true.rawValue: return true
            case _ValueBytes.Tag.false.rawValue: return false
            default: return nil
            }
        }
    }

    static func double(_ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> Double {
        try tagged(Double.self, as: Double.self, &reader, path) { tag, reader in
            switch tag {
            case _ValueBytes.Tag.double.rawValue: return try reader.double()
            case _ValueBytes.Tag.int.rawValue: return Double(try reader.int64())
            default: return nil
            }
        }
    }
}
