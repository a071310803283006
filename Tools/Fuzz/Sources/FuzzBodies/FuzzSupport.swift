import Foundation
import Logging

/// A broken property the fuzzer found: what was expected and what came out instead. A fuzz target
/// traps on one (so libFuzzer keeps the input); the regression tests report it.
public struct FuzzViolation: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A logger that drops everything: fuzzing must not spend its time printing.
let silentLogger: Logger = {
    var logger = Logger(label: "fuzz")
    logger.logLevel = .critical
    return logger
}()

/// A scratch folder for the stores that need files, made once per process.
let scratchDirectory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mib-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// Runs async fuzz work to completion from libFuzzer's synchronous callback (a thread outside the
/// concurrency pool, so blocking it is safe).
public func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = OutcomeBox()
    Task {
        do {
            try await body()
        } catch {
            outcome.set(error)
        }
        done.signal()
    }
    done.wait()
    if let error = outcome.error { throw error }
}

private final class OutcomeBox: @unchecked Sendable {
    // Written by the task before the semaphore is signalled, read after the wait: ordered by it.
    var error: (any Error)?
    func set(_ error: any Error) { self.error = error }
}

/// What each fuzz target's `LLVMFuzzerTestOneInput` does: runs `body` on the input and traps on a
/// ``FuzzViolation`` (or any error), so that libFuzzer keeps the input as a crash.
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int,
                         _ body: @escaping @Sendable (Data) async throws -> Void) -> CInt {
    let data = Data(bytes: bytes, count: count)
    do {
        try runBlocking { try await body(data) }
    } catch {
        fatalError("\(error)")
    }
    return 0
}

/// ``fuzzOneInput(_:_:_:)`` for a synchronous body: called directly, with no task per input.
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ body: (Data) throws -> Void) -> CInt {
    do {
        try body(Data(bytes: bytes, count: count))
    } catch {
        fatalError("\(error)")
    }
    return 0
}
