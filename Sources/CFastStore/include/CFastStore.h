// C support for FastStore: what Swift cannot spell. No API of its own:
// FastStore's internals call these, nothing else should.

#ifndef CFASTSTORE_H
#define CFASTSTORE_H

// The calling thread's tracking context (FastStore's `_TrackingContext`,
// retained by the thread's pthread key, which releases it at thread exit),
// or NULL before the thread made one.
//
// Used on Linux only. A C thread-local rather than `pthread_getspecific`
// behind a lazily made key: every versioned read and write reads it, and
// this is one `%fs`-relative load where the key cost a `swift_once` check,
// an accessor call and a library call. (Apple platforms keep the key: there
// a C thread-local's storage is freed by a key destructor of its own, which
// may run before FastStore's.) Initial-exec: a library holding FastStore
// that is loaded with `dlopen` takes its 8 bytes from the static TLS surplus.
#if defined(__linux__)
#define CFASTSTORE_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define CFASTSTORE_TLS_MODEL
#endif

extern _Thread_local void *_Nullable _cfaststore_tracking_context CFASTSTORE_TLS_MODEL;

static inline __attribute__((always_inline)) void *_Nullable _cfaststore_tracking_context_get(void) {
    return _cfaststore_tracking_context;
}

static inline __attribute__((always_inline)) void _cfaststore_tracking_context_set(void *_Nullable context) {
    _cfaststore_tracking_context = context;
}

// The process-wide counters of FastStore's stamps and node identities:
// each fresh stamp or `NodeID` is the counter's next value (relaxed: only
// uniqueness and, per thread, order matter).
//
// C rather than Swift globals: a Swift global is made lazily, and every
// access checked it (`swift_once`) and called its accessor; a write
// takes one stamp, a new list or value one identity.
#include <stdbool.h>
#include <stdint.h>

extern uint64_t _cfaststore_stamp_counter;
extern uint64_t _cfaststore_node_counter;

/// Adds `count` to the stamp counter; returns the value before.
static inline __attribute__((always_inline)) uint64_t _cfaststore_stamps_take(uint64_t count) {
    return __atomic_fetch_add(&_cfaststore_stamp_counter, count, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) uint64_t _cfaststore_stamps_load(void) {
    return __atomic_load_n(&_cfaststore_stamp_counter, __ATOMIC_RELAXED);
}

extern uint32_t _cfaststore_registry_counter;

/// A number for a new consumer registry (it tells its consumers from
/// another registry's without reading their position); wraps after 2^32.
static inline __attribute__((always_inline)) uint32_t _cfaststore_registries_take(void) {
    return __atomic_add_fetch(&_cfaststore_registry_counter, 1, __ATOMIC_RELAXED);
}

/// Adds one to the node counter; returns the value before.
static inline __attribute__((always_inline)) uint64_t _cfaststore_nodes_take(void) {
    return __atomic_fetch_add(&_cfaststore_node_counter, 1, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) uint64_t _cfaststore_nodes_load(void) {
    return __atomic_load_n(&_cfaststore_node_counter, __ATOMIC_RELAXED);
}

// A list node's lending link (`_ListNodeHeader.pair`, see
// `_ListNode+Lending.swift`): claimed by one drain at a time (a node two
// stores' states share can be reached by both drains), read and cleared with
// acquire and release ordering.
static inline __attribute__((always_inline)) bool _cfaststore_pair_claim(void *_Nullable *_Nonnull pair, void *_Nonnull value) {
    void *expected = 0;
    return __atomic_compare_exchange_n(pair, &expected, value, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static inline __attribute__((always_inline)) void *_Nullable _cfaststore_pair_load(void *_Nullable *_Nonnull pair) {
    return __atomic_load_n(pair, __ATOMIC_ACQUIRE);
}

static inline __attribute__((always_inline)) void _cfaststore_pair_store(void *_Nullable *_Nonnull pair, void *_Nullable value) {
    __atomic_store_n(pair, value, __ATOMIC_RELEASE);
}

// A list node's lent-item bits (`_ListNodeHeader.borrowed`): written by the
// settle on a borrower that other threads may be reading (a published
// state's node), through a pointer to the field alone.
static inline __attribute__((always_inline)) uint32_t _cfaststore_borrowed_load(uint32_t *_Nonnull borrowed) {
    return __atomic_load_n(borrowed, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) void _cfaststore_borrowed_store(uint32_t *_Nonnull borrowed, uint32_t value) {
    __atomic_store_n(borrowed, value, __ATOMIC_RELAXED);
}

// Whether the calling thread is the process's main thread: the owning
// thread of a `MainStore`. Found once per thread (FastStore's tracking
// context keeps the answer). On Linux the main thread's id is the process
// id, which Swift cannot ask for (`syscall` is variadic).
int _cfaststore_is_main_thread(void);

#endif
