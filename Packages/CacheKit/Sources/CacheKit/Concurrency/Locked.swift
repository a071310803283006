#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock that ThreadSanitizer understands: `pthread_mutex_t` on Linux,
/// `os_unfair_lock` on Apple platforms (as swift-log and swift-metrics keep internally). Every
/// mutable state shared between threads in the kits lives in one, instead of `Synchronization.Mutex`,
/// whose futex-based lock TSan on Linux cannot see (every access inside `withLock` would be reported as
/// a race) and which needs iOS 18.
///
/// ```swift
/// let counts = Locked([String: Int]())
/// counts.withLock { $0["hits", default: 0] += 1 }
/// ```
///
/// Not recursive: calling `withLock` again from inside `body` deadlocks.
public final class Locked<Value>: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    @usableFromInline var value: Value

    /// Creates a lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    /// - Throws: what `body` throws; the lock is released either way.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&value)
    }
}
