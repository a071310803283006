import APICore
import CacheKit
import Foundation
import HTTPTypes

/// A transport for unit tests of logic: it answers from stubs and keeps every request it saw. A
/// request nobody stubbed fails loudly with its method and path, instead of a made-up response.
///
/// ```swift
/// let transport = RecordingTransport()
/// transport.stub(.get, "/api/profile", status: 200, body: Data(#"{"name":"Ada"}"#.utf8))
/// ```
public final class RecordingTransport: HTTPTransport {
    /// One stubbed answer: a response or a transport error.
    public typealias Answer = @Sendable (TransportRequest) -> Result<TransportResponse, TransportError>

    private let state = Locked<(stubs: [String: [Answer]], requests: [TransportRequest])>(([:], []))

    /// Creates a transport with no stubs.
    public init() {}

    /// The requests sent so far, in order.
    public var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// Answers `method path` (query ignored) with `answer`. Several stubs for one route answer in
    /// turn; the last one keeps answering.
    public func stub(_ method: HTTPRequest.Method, _ path: String, answer: @escaping Answer) {
        state.withLock { $0.stubs["\(method.rawValue) \(path)", default: []].append(answer) }
    }

    /// Answers `method path` with a fixed response.
    public func stub(
        _ method: HTTPRequest.Method, _ path: String, status: Int, headerFields: HTTPFields = [:],
        body: Data = Data()
    ) {
        stub(method, path) { _ in .success(TransportResponse(status: status, headerFields: headerFields, body: body)) }
    }

    /// Answers `method path` with a transport error.
    public func stub(_ method: HTTPRequest.Method, _ path: String, error: TransportError) {
        stub(method, path) { _ in .failure(error) }
    }

    /// Records the request and returns the stubbed answer.
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let route = "\(request.method.rawValue) \(request.url.path)"
        let answer: Answer? = state.withLock { state in
            state.requests.append(request)
            guard var answers = state.stubs[route], let first = answers.first else { return nil }
            if answers.count > 1 {
                answers.removeFirst()
                state.stubs[route] = answers
            }
            return first
        }
        guard let answer else { throw .other(reason: "RecordingTransport: no stub for \(route)") }
        return try answer(request).get()
    }
}

/// A `Sleeper` that records each delay and returns at once, so backoff is tested without waiting.
public final class RecordingSleeper: Sleeper {
    private let recorded = Locked<[Duration]>([])

    /// Creates a sleeper.
    public init() {}

    /// The delays asked for, in order.
    public var delays: [Duration] { recorded.withLock { $0 } }

    /// Records `duration` and returns; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        recorded.withLock { $0.append(duration) }
        try Task.checkCancellation()
    }
}

/// A `Sleeper` whose sleeps end only when the test calls ``wakeAll()`` (or the sleeping task is
/// cancelled): a timeout measured with it never fires by itself, however loaded the machine.
public final class ManualSleeper: Sleeper {
    private let state = Locked<(delays: [Duration], sleepers: [AsyncStream<Void>.Continuation])>(([], []))

    /// Creates a sleeper.
    public init() {}

    /// The delays asked for, in order.
    public var delays: [Duration] { state.withLock { $0.delays } }

    /// Suspends until ``wakeAll()``; throws `CancellationError` when the task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        state.withLock {
            $0.delays.append(duration)
            $0.sleepers.append(continuation)
        }
        // The loop ends when the stream is finished (woken) or the task is cancelled.
        for await _ in stream {}
        try Task.checkCancellation()
    }

    /// Ends every sleep in progress: the timeouts they measure fire.
    public func wakeAll() {
        let sleepers = state.withLock { state in
            defer { state.sleepers = [] }
            return state.sleepers
        }
        for sleeper in sleepers { sleeper.finish() }
    }
}

/// A `TokenProvider` whose credentials a test sets.
public final class StaticTokenProvider: TokenProvider {
    private let credentials: Locked<Credentials?>
    /// Credentials that take over once `calls` more reads have been answered.
    private let scheduled = Locked<(calls: Int, credentials: Credentials?)?>(nil)
    /// What a read runs before it answers, once `calls` more reads have been answered.
    private let beforeAnswer = Locked<(calls: Int, body: @Sendable () async -> Void)?>(nil)

    /// Creates a provider with these credentials (`nil`: signed out).
    public init(_ credentials: Credentials? = nil) {
        self.credentials = Locked(credentials)
    }

    /// Signs a user in or out, now (a switch scheduled by ``set(_:afterCalls:)`` is dropped).
    public func set(_ credentials: Credentials?) {
        scheduled.withLock { $0 = nil }
        self.credentials.withLock { $0 = credentials }
    }

    /// Whether a switch scheduled by ``set(_:afterCalls:)`` has not happened yet.
    public var hasPendingSwitch: Bool {
        scheduled.withLock { $0 != nil }
    }

    /// Signs another user in (or out) once `calls` more reads of the credentials have been answered: a user
    /// switch between the moment code reads who is signed in and the moment its request takes a token.
    public func set(_ credentials: Credentials?, afterCalls calls: Int) {
        scheduled.withLock { $0 = (calls, credentials) }
    }

    /// Runs `body` during a read of the credentials, before it answers, once `calls` more reads have been answered:
    /// something (a logout's clearing) that lands after the caller asked who is signed in and before it holds the answer.
    public func beforeAnswering(afterCalls calls: Int = 0, _ body: @escaping @Sendable () async -> Void) {
        beforeAnswer.withLock { $0 = (calls, body) }
    }

    /// The current credentials.
    public func currentCredentials() async -> Credentials? {
        let before = beforeAnswer.withLock { before -> (@Sendable () async -> Void)? in
            guard let pending = before else { return nil }
            guard pending.calls <= 0 else {
                before = (pending.calls - 1, pending.body)
                return nil
            }
            before = nil
            return pending.body
        }
        await before?()
        scheduled.withLock { scheduled in
            guard let pending = scheduled else { return }
            if pending.calls <= 0 {
                credentials.withLock { $0 = pending.credentials }
                scheduled = nil
            } else {
                scheduled = (pending.calls - 1, pending.credentials)
            }
        }
        return credentials.withLock { $0 }
    }
}
