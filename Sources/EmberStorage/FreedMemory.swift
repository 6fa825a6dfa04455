#if canImport(Glibc)
import CMalloc
#endif

/// Hands memory the process freed back to the system, after a large load.
///
/// Reading a large location from a store (or writing one into a client's cache) allocates a
/// row's strings, its parsed value and the pieces of its tree for every row, then frees them
/// between the allocations that stay: glibc keeps such freed memory resident, since it lies
/// between chunks in use. After the whole of a 42 MB export was read and listened to, 24 MB
/// of the process's 129 MB were freed memory; `malloc_trim(0)` returns those pages
/// (`madvise`), which takes a few milliseconds for a heap of that size. Called only after a
/// load of at least ``largeLoadBytes``, so that ordinary reads never pay for it.
public enum FreedMemory {
    /// The bytes of rows a load reads (or a commit writes) from which it hands back what it freed.
    public static let largeLoadBytes = 8 << 20

    /// Returns freed memory to the system (glibc's `malloc_trim(0)`; nothing elsewhere).
    public static func release() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
