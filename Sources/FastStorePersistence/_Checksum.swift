import Foundation

/// The checksum stored beside each blob of the state file: 64-bit FNV-1a,
/// as a signed integer (SQLite's). Not cryptographic: it catches bytes
/// changed by damage, not by intent.
enum _Checksum {
    /// - Complexity: O(bytes).
    static func of(_ data: Data) -> Int64 {
        // NB: through the bytes' pointer: `Data`'s iterator costs several
        // times the hashing itself.
        data.withUnsafeBytes { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
            return Int64(bitPattern: hash)
        }
    }
}
