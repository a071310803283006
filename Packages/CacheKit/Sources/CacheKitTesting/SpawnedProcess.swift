import CacheKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`: how the tests start one (the crash trials' children,
/// the browser).
///
/// Not Foundation's `Process`: on Linux, `Process.run()` of Swift 6.3 now and then crashes the parent
/// itself (its scan of `/proc/self/fd` copies 256 bytes of each directory entry, past the end of the
/// read buffer when a short entry ends it), which took down a whole suite of crash trials with a signal 11.
public final class SpawnedProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
    }

    /// The child's process id.
    public let pid: pid_t
    private let ended = Locked<Termination?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `executable` with `arguments`, standard input from `/dev/null`, standard output to
    /// `output` (created or emptied, 0600) or `/dev/null`, standard error to `/dev/null`.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments, after its name.
    ///   - environment: the child's whole environment.
    ///   - output: the file its standard output goes to; `nil` for `/dev/null`.
    /// - Throws: ``SpawnFailed`` with `posix_spawn`'s error number.
    public static func start(
        _ executable: String, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        output: URL? = nil
    ) throws -> SpawnedProcess {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Every signal at its default and none blocked, whatever the calling thread blocks: a child that
        // inherited a blocked SIGTERM would outlive a SIGTERM to its group.
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        // No other descriptor of this process (a server's socket, a lock) reaches the child.
        #if canImport(Glibc)
            if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        #else
            flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw SpawnFailed(executable: executable, errno: status) }
        return SpawnedProcess(pid: pid)
    }

    #if canImport(Glibc)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift does not import.
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            .map { unsafeBitCast($0, to: CloseFrom.self) }
    #endif

    /// How it ended, or `nil` while it runs (never blocks; reaps it once ended).
    public var termination: Termination? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            // WIFEXITED / WTERMSIG, which Swift does not import: the low 7 bits are the signal, 0 for an exit.
            let signal = status & 0x7f
            ended = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            return ended
        }
    }

    /// Whether it still runs.
    public var isRunning: Bool { termination == nil }

    /// Sends `signal` (while it runs; a reaped id is never signalled, as it may be another process's now).
    /// - Returns: whether the signal was sent.
    @discardableResult
    public func send(_ signal: Int32) -> Bool {
        ended.withLock { ended in ended == nil && kill(pid, signal) == 0 }
    }

    /// Waits until it ended (polling every millisecond, so no thread is held in `waitpid`).
    public func waitUntilExit() async -> Termination {
        while true {
            if let termination { return termination }
            // A cancelled task's sleep returns at once: sleep the thread then, rather than spin.
            if (try? await Task.sleep(for: .milliseconds(1))) == nil { usleep(1_000) }
        }
    }
}

/// `posix_spawn` refused to start a child.
public struct SpawnFailed: Error, CustomStringConvertible {
    /// The program.
    public var executable: String
    /// `posix_spawn`'s error number.
    public var errno: Int32

    /// "could not start /usr/bin/chromium: No such file or directory".
    public var description: String { "could not start \(executable): \(String(cString: strerror(errno)))" }
}
