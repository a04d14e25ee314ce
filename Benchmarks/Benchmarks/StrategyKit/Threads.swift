#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body(i)` on `count` new threads and joins them all: when this
/// returns, every thread has exited (and, under jemalloc, returned its
/// allocation cache), so memory readings taken afterwards are settled.
public func runOnThreads(_ count: Int, stackSize: Int = 8 << 20, _ body: @escaping @Sendable (Int) -> Void) {
    final class Context: @unchecked Sendable {
        let body: @Sendable (Int) -> Void
        let index: Int
        init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
    }
    var threads: [pthread_t] = []
    for i in 0..<count {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(Context(body, i)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let status = pthread_create(&thread, &attributes, { raw in
            #if canImport(Glibc)
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            #else
            let context = Unmanaged<Context>.fromOpaque(raw).takeRetainedValue()
            #endif
            context.body(context.index)
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        precondition(status == 0, "pthread_create failed with \(status)")
        #if canImport(Glibc)
        threads.append(thread)
        #else
        threads.append(thread!)
        #endif
    }
    for thread in threads { pthread_join(thread, nil) }
}
