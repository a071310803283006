#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a lock that ThreadSanitizer understands: a `pthread_mutex_t`, as swift-log,
/// swift-metrics and SwiftNIO keep internally, on Linux and Apple platforms alike. Every mutable
/// state shared between threads in the kits lives in one, instead of `Synchronization.Mutex`, whose
/// futex-based lock TSan on Linux cannot see (every access inside `withLock` would be reported as a
/// race) and which needs iOS 18.
///
/// ```swift
/// let counts = Locked([String: Int]())
/// counts.withLock { $0["hits", default: 0] += 1 }
/// ```
///
/// Not recursive: calling `withLock` again from inside `body` deadlocks.
///
/// The value lives behind a pointer, not in a stored `var`: the lock already makes access exclusive, and a
/// class's stored `var` would add a dynamic exclusivity check (`swift_beginAccess`, `swift_endAccess`) to
/// every use, on the memory cache's hit path too.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    /// Creates a lock guarding `value`.
    public init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    /// - Throws: what `body` throws; the lock is released either way.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value.pointee)
    }
}
