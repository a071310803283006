import CacheKit
import Logging

/// Keeps every line logged through its ``logger(label:)``, so a test can check that a promised log
/// line is there, and that no raw key or identifier is in it.
///
/// ```swift
/// let logs = LogRecorder()
/// let environment = CacheEnvironment(logger: logs.logger())
/// // … drop a corrupt entry …
/// let line = try #require(logs.lines.first { $0.message == "Dropped a corrupt cache entry" })
/// #expect(!line.text.contains("user-42"))
/// ```
public final class LogRecorder: Sendable {
    /// One logged line.
    public struct Line: Sendable, Hashable {
        /// Its level.
        public var level: Logger.Level
        /// The message.
        public var message: String
        /// The metadata, rendered as text (the logger's and the line's).
        public var metadata: [String: String]

        /// The message and every metadata key and value: what any log backend could print.
        public var text: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    private let recorded = Locked<[Line]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Every line so far, in order.
    public var lines: [Line] { recorded.withLock { $0 } }

    /// The lines whose message is `message`.
    public func lines(withMessage message: String) -> [Line] { lines.filter { $0.message == message } }

    /// A logger at `.trace` whose lines this recorder keeps.
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in Handler(recorder: self) }
    }

    fileprivate func append(_ line: Line) {
        recorded.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.append(Line(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
