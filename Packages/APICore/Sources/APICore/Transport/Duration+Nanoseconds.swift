extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64.max`: what SwiftNIO's clocks take (the pinned
    /// transport's and the AsyncHTTPClient transport's timeouts).
    package var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
