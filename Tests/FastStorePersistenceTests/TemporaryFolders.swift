import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The prefix of every test process's folder under the system's temporary
/// folder; the process id follows it.
private let folderPrefix = "FastStorePersistenceTests-"

/// This process's folder for the tests' files.
///
/// Made on first use, which also removes the folders that test processes no
/// longer running left behind (a crash, a kill, a run stopped in a
/// debugger); this one is removed when the process exits normally. A folder
/// whose process still runs (another `swift test` beside this one, a
/// parent waiting for its child) is never touched.
private let processFolder: URL = {
    let base = FileManager.default.temporaryDirectory
    let me = getpid()
    for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix(folderPrefix) {
        guard let pid = Int32(name.dropFirst(folderPrefix.count)), pid != me, pid > 0 else { continue }
        // NB: EPERM means the process exists (someone else's): kept.
        if kill(pid, 0) != 0, errno == ESRCH {
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
    }
    atexit { removeProcessFolder() }
    return base.appendingPathComponent(folderPrefix + "\(me)")
}()

private func removeProcessFolder() {
    try? FileManager.default.removeItem(at: processFolder)
}

/// A fresh folder for one test's files, inside this process's folder.
func temporaryDirectory(_ name: String = #function) -> URL {
    let url = processFolder
        .appendingPathComponent(name.filter { $0.isLetter || $0.isNumber } + "-" + UUID().uuidString)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
