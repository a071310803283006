import Foundation

/// This test binary run again as a child process, filtered to one test, to be killed with SIGKILL at a
/// random moment: the harness of every kill -9 trial. The child's test is enabled only when its
/// environment variable is set, and signals that it started by creating a file.
///
/// ```swift
/// let child = try CrashChild.start(test: "childSaves", environment: ["MY_CHILD": url.path])
/// try await child.waitUntilStarted(signalledBy: url)   // the child created it
/// try await child.kill(after: .milliseconds(Int.random(in: 5...60)))
/// ```
public struct CrashChild: Sendable {
    /// The running child.
    public let process: SpawnedProcess

    /// Starts this test binary filtered to `test`, with `environment` added to this process's own, its
    /// output discarded.
    ///
    /// - Parameters:
    ///   - test: the name of the child's test function.
    ///   - environment: the variables that enable the child's test and tell it where to work.
    /// - Throws: ``SpawnFailed`` when the binary cannot be started.
    public static func start(test: String, environment: [String: String]) throws -> CrashChild {
        let process = try SpawnedProcess.start(
            CommandLine.arguments[0], arguments: ["--testing-library", "swift-testing", "--filter", test],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        return CrashChild(process: process)
    }

    /// Waits until the child created `file` (its sign that it started working).
    /// - Throws: ``WaitTimedOut`` after `timeout`, naming the file and the binary.
    public func waitUntilStarted(signalledBy file: URL, timeout: Duration = .seconds(60)) async throws {
        let binary = CommandLine.arguments[0]
        try await waitUntil("the child to create \(file.lastPathComponent) (is \(binary) the test binary?)", timeout: timeout) {
            FileManager.default.fileExists(atPath: file.path)
        }
    }

    /// Pauses the child (SIGSTOP) at random moments, up to `attempts` times, until `inside()` says it stopped
    /// where the trial wants it (a write half done, a temporary file present), and kills it there with SIGKILL;
    /// after the last attempt it is killed wherever it is. A kill inside a write is then a certainty of the
    /// trial, not a chance of its timing.
    /// - Returns: whether the kill landed where `inside()` wanted it.
    /// - Throws: ``CrashChildFailed`` when the child had ended by itself with a failure.
    public func killWhenPaused(where inside: () -> Bool, attempts: Int = 400) async throws -> Bool {
        for _ in 0..<attempts where process.isRunning {
            try await Task.sleep(for: .microseconds(Int.random(in: 100...2_000)))
            guard process.send(SIGSTOP) else { break }
            await Self.waitUntilStopped(process.pid)
            if inside() {
                try await kill(after: .zero)
                return true
            }
            process.send(SIGCONT)
        }
        try await kill(after: .zero)
        return false
    }

    /// Waits (at most 100 ms) until the process shows as stopped in `/proc` (Linux); elsewhere, 5 ms.
    private static func waitUntilStopped(_ pid: Int32) async {
        for _ in 0..<100 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else {
                try? await Task.sleep(for: .milliseconds(5))
                return
            }
            let state = stat[stat.index(after: close)...].split(separator: " ").first
            if state == "T" || state == "t" { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Sleeps `delay`, then kills the child with SIGKILL and waits for it to end.
    /// - Returns: whether the kill ended it (`false`: it had finished its work and exited cleanly first).
    /// - Throws: ``CrashChildFailed`` when it had ended by itself with a failure: a child that failed on its
    ///   own is no kill trial.
    @discardableResult
    public func kill(after delay: Duration) async throws -> Bool {
        // Cancelled (a test's time limit), the sleep throws: the child is killed all the same, even stopped.
        var cancelled: (any Error)?
        do { try await Task.sleep(for: delay) } catch { cancelled = error }
        process.send(SIGKILL)
        let ended = await process.waitUntilExit()
        if let cancelled { throw cancelled }
        switch ended {
        case .signalled(SIGKILL): return true
        case .exited(0): return false
        case .exited(let status): throw CrashChildFailed(reason: "exit status", status: status)
        case .signalled(let signal): throw CrashChildFailed(reason: "signal", status: signal)
        }
    }
}

/// A crash trial's child ended by itself with a failure before the kill.
public struct CrashChildFailed: Error, CustomStringConvertible {
    /// `exit status` or `signal`.
    public var reason: String
    /// The status or the signal.
    public var status: Int32

    /// "the child ended by itself (exit status 1) before the kill".
    public var description: String { "the child ended by itself (\(reason) \(status)) before the kill" }
}
