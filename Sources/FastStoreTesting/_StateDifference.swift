/// The differences between an expected and an actual value, path by path:
/// what a failed state assertion prints.
///
/// Walks both values in parallel with `Mirror`:
/// - versioned nodes and collections (``_StructuralDiffing``) with the same
///   identity and stamp hold the same contents and are skipped in O(1); the
///   collections' structural `difference(from:)` names the elements that
///   changed, and only those are walked;
/// - `Equatable` values that compare equal are skipped without walking them;
/// - structs, classes, tuples, enums (same case: the payload), optionals,
///   arrays and dictionaries are walked child by child; anything else that
///   differs is one change at its path.
///
/// Only the first ``limit`` changes are described (the rest are counted),
/// so the message of a one-row change in a 1,000,000-row list is one line.
///
/// - Complexity: O(visited values), which for versions of one state is
///   O(c × log n) for c changed elements of versioned collections of n,
///   plus the size of the non-versioned values on the changed paths.
internal struct _StateDifference {
    /// One difference: where, and the two values described.
    struct Change: Equatable {
        let path: String
        let expected: String
        let actual: String
    }

    /// How many changes are described; the rest are only counted.
    static let defaultLimit = 50
    /// How many characters of a value's description a change keeps.
    static let valueLimit = 200

    let limit: Int
    /// The first `limit` changes, in walk order.
    private(set) var changes: [Change] = []
    /// How many changes were found, described or not.
    private(set) var count = 0
    /// How many pairs of values the walk looked at (a test hook: what its
    /// cost follows).
    private(set) var visited = 0
    /// How many versioned values were skipped as the same version on both
    /// sides (a test hook).
    var skipped = 0

    /// The differences from `expected` to `actual`, paths starting with
    /// `root`.
    init(expected: Any, actual: Any, root: String = "state", limit: Int = _StateDifference.defaultLimit) {
        self.limit = limit
        walk(expected, actual, path: root)
    }

    /// Whether no difference was found.
    var isEmpty: Bool { count == 0 }

    /// The changes, one per line (`  path: expected → actual`), with
    /// "… and N more" past the limit.
    var lines: String {
        var text = changes.map { "  \($0.path): \($0.expected) → \($0.actual)" }.joined(separator: "\n")
        if count > changes.count {
            text += "\n  … and \(count - changes.count) more"
        }
        return text
    }

    /// Records one change at `path`; `nil` is a value that is absent (a
    /// removed or inserted element).
    mutating func record(_ path: String, expected: Any?, actual: Any?) {
        count += 1
        guard changes.count < limit else { return }
        changes.append(Change(path: path, expected: Self.describe(expected), actual: Self.describe(actual)))
    }

    /// Walks `expected` and `actual`, recording where they differ.
    mutating func walk(_ expected: Any, _ actual: Any, path: String) {
        visited += 1
        if let versioned = expected as? any _StructuralDiffing {
            versioned._difference(to: actual, path: path, into: &self)
            return
        }
        guard type(of: expected) == type(of: actual) else {
            record(path, expected: expected, actual: actual)
            return
        }
        let equal = _isEqual(expected, actual)
        if equal == true { return }
        let before = count
        walkChildren(expected, actual, path: path)
        // NB: an `==` that says "different" where the walk found nothing
        // (a custom `==`, NaN) still is a difference, at this path.
        if count == before && equal == false {
            record(path, expected: expected, actual: actual)
        }
    }

    private mutating func walkChildren(_ expected: Any, _ actual: Any, path: String) {
        let expectedMirror = Mirror(reflecting: expected)
        let actualMirror = Mirror(reflecting: actual)
        switch expectedMirror.displayStyle {
        case .optional?:
            switch (expectedMirror.children.first?.value, actualMirror.children.first?.value) {
            case let (expectedValue?, actualValue?): walk(expectedValue, actualValue, path: path)
            case (nil, nil): return
            case let (expectedValue, actualValue):
                count += 1
                guard changes.count < limit else { return }
                changes.append(Change(
                    path: path,
                    expected: expectedValue.map { Self.describe($0) } ?? "nil",
                    actual: actualValue.map { Self.describe($0) } ?? "nil"))
            }
        case .enum?:
            let expectedCase = expectedMirror.children.first
            let actualCase = actualMirror.children.first
            if let expectedCase, let actualCase, let label = expectedCase.label, label == actualCase.label {
                walk(expectedCase.value, actualCase.value, path: path + "." + label)
            } else if expectedCase != nil || actualCase != nil
                || String(reflecting: expected) != String(reflecting: actual)
            {
                record(path, expected: expected, actual: actual)
            }
        case .collection?:
            let expectedElements = Array(expectedMirror.children)
            let actualElements = Array(actualMirror.children)
            let common = min(expectedElements.count, actualElements.count)
            for offset in 0..<common {
                walk(expectedElements[offset].value, actualElements[offset].value, path: "\(path)[\(offset)]")
            }
            for offset in common..<expectedElements.count {
                record("\(path)[\(offset)]", expected: expectedElements[offset].value, actual: nil)
            }
            for offset in common..<actualElements.count {
                record("\(path)[\(offset)]", expected: nil, actual: actualElements[offset].value)
            }
        case .dictionary?:
            walkDictionary(expectedMirror, actualMirror, path: path)
        case .class?:
            if (expected as AnyObject) === (actual as AnyObject) { return }
            walkFields(expectedMirror, actualMirror, expected, actual, path: path)
        default:
            walkFields(expectedMirror, actualMirror, expected, actual, path: path)
        }
    }

    /// Structs, classes, tuples, sets and leaves: field by field when both
    /// have the same fields, else one change.
    private mutating func walkFields(
        _ expectedMirror: Mirror, _ actualMirror: Mirror, _ expected: Any, _ actual: Any, path: String
    ) {
        let expectedFields = Array(expectedMirror.children)
        let actualFields = Array(actualMirror.children)
        let sameShape = expectedMirror.displayStyle != .set
            && !expectedFields.isEmpty
            && expectedFields.count == actualFields.count
            && zip(expectedFields, actualFields).allSatisfy { $0.label == $1.label }
        guard sameShape else {
            // A leaf (or a set): `Equatable` said different, or, without it,
            // the descriptions are compared.
            if _isEqual(expected, actual) != nil || String(reflecting: expected) != String(reflecting: actual) {
                record(path, expected: expected, actual: actual)
            }
            return
        }
        for (offset, (expectedField, actualField)) in zip(expectedFields, actualFields).enumerated() {
            let component: String
            if let label = expectedField.label {
                component = label.hasPrefix(".") ? label : "." + label
            } else {
                component = "[\(offset)]"
            }
            walk(expectedField.value, actualField.value, path: path + component)
        }
    }

    /// Dictionaries: key by key (keys that are `Hashable`), in the order of
    /// their descriptions.
    private mutating func walkDictionary(_ expectedMirror: Mirror, _ actualMirror: Mirror, path: String) {
        func entries(_ mirror: Mirror) -> [AnyHashable: (key: Any, value: Any)]? {
            var result: [AnyHashable: (key: Any, value: Any)] = [:]
            for entry in mirror.children {
                let pair = Array(Mirror(reflecting: entry.value).children)
                guard pair.count == 2, let key = pair[0].value as? AnyHashable else { return nil }
                result[key] = (pair[0].value, pair[1].value)
            }
            return result
        }
        guard let expectedEntries = entries(expectedMirror), let actualEntries = entries(actualMirror) else {
            record(path, expected: expectedMirror.subjectType, actual: actualMirror.subjectType)
            return
        }
        let keys = Set(expectedEntries.keys).union(actualEntries.keys)
            .map { (key: $0, description: String(reflecting: ($0.base))) }
            .sorted { $0.description < $1.description }
        for key in keys {
            let elementPath = "\(path)[\(key.description)]"
            switch (expectedEntries[key.key], actualEntries[key.key]) {
            case let (expectedEntry?, actualEntry?): walk(expectedEntry.value, actualEntry.value, path: elementPath)
            case let (expectedEntry?, nil): record(elementPath, expected: expectedEntry.value, actual: nil)
            case let (nil, actualEntry?): record(elementPath, expected: nil, actual: actualEntry.value)
            case (nil, nil): break
            }
        }
    }

    /// A value as a change shows it: its debug description, cut at
    /// ``valueLimit`` characters; `(absent)` for none.
    static func describe(_ value: Any?) -> String {
        guard let value else { return "(absent)" }
        let description = String(reflecting: value)
        guard description.count > valueLimit else { return description }
        return description.prefix(valueLimit) + "…"
    }
}

/// Whether two values are equal, when the first is `Equatable`; nil when
/// it is not.
internal func _isEqual(_ lhs: Any, _ rhs: Any) -> Bool? {
    guard let lhs = lhs as? any Equatable else { return nil }
    return lhs._isEqual(to: rhs)
}

extension Equatable {
    fileprivate func _isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
