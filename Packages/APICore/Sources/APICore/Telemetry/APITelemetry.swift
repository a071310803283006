import CacheKit
import Foundation
import Logging
import Metrics

/// Where the REST and GraphQL clients report every request, retry and error (REQ OBS-1, OBS-2): counted
/// through swift-metrics, checked against the ``ErrorRateAlert``, and handed to the app's sinks as
/// ``APITelemetryEvent``s that carry no personal data by construction.
///
/// swift-metrics counters (stable names and dimensions):
/// - `api_requests_total`: every request sent to the network (retries are not new requests);
/// - `api_errors_total{kind,status,endpoint}`: every ``APIError`` a caller receives (`status` is `none`
///   without one);
/// - `api_retries_total{outcome}`: every retry, by outcome (`succeeded`, `failed`, `gave_up`);
/// - `api_error_rate_alerts_total{state}`: the alert firing and clearing.
///
/// ```swift
/// let telemetry = APITelemetry(clock: environment.clock, sinks: [LoggingTelemetrySink(logger: logger)])
/// let rest = RESTClient(configuration: .init(baseURL: url, environment: environment, telemetry: telemetry))
/// ```
public final class APITelemetry: Sendable {
    /// The failure-rate alert over the requests recorded here.
    public let alert: ErrorRateAlert
    private let clock: any CacheClock
    private let sinks: Locked<[any APITelemetrySink]>
    private let metrics: any MetricsFactory
    private let requests: Counter

    /// Creates a recorder.
    /// - Parameters:
    ///   - clock: the app's clock (timestamps and the alert's window).
    ///   - alert: when the error-rate alert fires.
    ///   - sinks: who receives the events, besides swift-metrics.
    ///   - metrics: where the counters go; the bootstrapped swift-metrics backend by default.
    public init(
        clock: any CacheClock = SystemClock(), alert: ErrorRateAlert.Configuration = .init(), sinks: [any APITelemetrySink] = [],
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.clock = clock
        self.metrics = metrics
        requests = Counter(label: "api_requests_total", factory: metrics)
        self.alert = ErrorRateAlert(configuration: alert, clock: clock)
        self.sinks = Locked(sinks)
    }

    /// Adds a sink (an exporter, the live dashboard).
    public func addSink(_ sink: any APITelemetrySink) {
        sinks.withLock { $0.append(sink) }
    }

    /// Records that a request's exchange with the network ended: `failed` when no server answered or it
    /// answered 5xx (what the error-rate alert counts).
    func recordExchange(failed: Bool) {
        requests.increment()
        if let change = alert.record(failed: failed) {
            Counter(label: "api_error_rate_alerts_total", dimensions: [("state", change.isFiring ? "firing" : "cleared")], factory: metrics)
                .increment()
            publish(.alert(change))
        }
    }

    /// Records an error a caller receives (cancellations are not errors).
    package func recordError(_ error: APIError, endpoint: String) {
        guard error != .cancelled, error != .transport(.cancelled) else { return }
        let event = APIErrorEvent(error, endpoint: endpoint, at: clock.now())
        Counter(
            label: "api_errors_total",
            dimensions: [("kind", event.kind), ("status", event.status.map(String.init) ?? "none"), ("endpoint", event.endpoint)],
            factory: metrics
        ).increment()
        publish(.error(event))
    }

    /// Records a retry and how it ended.
    func recordRetry(endpoint: String, attempt: Int, outcome: APIRetryEvent.Outcome) {
        Counter(label: "api_retries_total", dimensions: [("outcome", outcome.rawValue)], factory: metrics).increment()
        publish(.retry(APIRetryEvent(endpoint: endpoint, attempt: attempt, outcome: outcome, at: clock.now())))
    }

    private func publish(_ event: APITelemetryEvent) {
        for sink in sinks.withLock({ $0 }) { sink.record(event) }
    }
}

/// Receives API telemetry events (an exporter, a dashboard, a test's recorder). Called synchronously on
/// the thread that recorded the event: return quickly.
public protocol APITelemetrySink: Sendable {
    /// Receives one event.
    func record(_ event: APITelemetryEvent)
}

/// Writes every event to swift-log: errors and retries at `debug`, the alert at `warning`.
public struct LoggingTelemetrySink: APITelemetrySink {
    private let logger: Logger

    /// Creates a sink writing to `logger`.
    public init(logger: Logger) { self.logger = logger }

    /// Logs the event with its (already redacted) fields as metadata.
    public func record(_ event: APITelemetryEvent) {
        switch event {
        case .error(let error):
            logger.debug(
                "API error",
                metadata: [
                    "kind": "\(error.kind)", "endpoint": "\(error.endpoint)", "status": "\(error.status.map(String.init) ?? "none")",
                    "code": "\(error.code ?? "none")",
                ])
        case .retry(let retry):
            logger.debug(
                "API retry",
                metadata: ["endpoint": "\(retry.endpoint)", "attempt": "\(retry.attempt)", "outcome": "\(retry.outcome.rawValue)"])
        case .alert(let status):
            logger.warning(
                status.isFiring ? "API error rate above threshold" : "API error rate back to normal",
                metadata: ["requests": "\(status.requests)", "failures": "\(status.failures)", "rate": "\(status.rate)"])
        }
    }
}
