import APICore
import CacheKitTesting
import Foundation
import MetricsTestKit
import Testing

/// Screens, time-to-interactive by source, time on screen, the funnel and opting out (REQ OBS-4).
@Suite(.timeLimit(.minutes(10))) struct ScreenTelemetryTests {
    @Test func timeToInteractiveIsSplitBySourceWithPercentilesFromAHistogram() {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let screens = ScreenTelemetry(clock: clock, metrics: metrics)
        for milliseconds in 1...100 {
            let visit = screens.appeared("catalog")
            clock.advance(by: Double(milliseconds) / 1_000)
            screens.displayed(visit, from: .cache)
        }
        let slow = screens.appeared("catalog")
        clock.advance(by: 0.8)
        screens.displayed(slow, from: .network)
        // A refresh of the same visit is not a second first paint.
        clock.advance(by: 5)
        screens.displayed(slow, from: .network)

        let cache = screens.timeToInteractive(from: .cache)
        #expect(cache?.count == 100)
        #expect(cache?.p50 == 50 && cache?.p90 == 90 && cache?.p99 == 99)
        let network = screens.timeToInteractive(from: .network)
        #expect(network?.count == 1 && network?.p50 == 800 && network?.p99 == 800)
        let timer = try? metrics.expectTimer("screen_time_to_interactive", [("screen", "catalog"), ("source", "network")])
        #expect(timer?.values == [800_000_000])
    }

    @Test func timeOnScreenAndTheFunnelAreCounted() {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let screens = ScreenTelemetry(clock: clock, metrics: metrics)
        for stage in ["login", "catalog", "detail", "catalog", "detail", "payment"] { screens.reached(stage) }
        let visit = screens.appeared("detail")
        clock.advance(by: 42)
        screens.disappeared(visit)
        #expect(screens.funnel() == ["login": 1, "catalog": 2, "detail": 2, "payment": 1])
        #expect(screens.timeOnScreen()?.p50 == 42_000)
        #expect(metrics.counterTotal(label: "funnel_stage_reached_total", dimensions: [("stage", "detail")]) == 2)
    }

    @Test func afterOptingOutNothingIsRecordedExportedOrKept() {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let screens = ScreenTelemetry(clock: clock, metrics: metrics)
        let before = screens.appeared("catalog")
        screens.displayed(before, from: .cache)
        screens.reached("catalog")
        screens.setOptedOut(true)
        #expect(screens.timeToInteractive(from: .cache) == nil && screens.funnel().isEmpty)
        let exported = metrics.timers.count + metrics.counters.count
        let visit = screens.appeared("detail")
        clock.advance(by: 1)
        screens.displayed(visit, from: .network)
        screens.reached("detail")
        screens.disappeared(visit)
        #expect(screens.timeToInteractive(from: .network) == nil && screens.timeOnScreen() == nil && screens.funnel().isEmpty)
        #expect(metrics.timers.count + metrics.counters.count == exported)
        #expect(ScreenTelemetry(optedOut: true, metrics: metrics).isOptedOut)
    }
}
