/// `delta-seconds` (RFC 9111 §1.2.2): a non-negative integer of ASCII digits only, used by `Age`,
/// `max-age` and the other directives that count seconds. A value too large to represent is taken
/// as 2147483648 (2^31), as the RFC says, so no header can overflow the arithmetic that follows.
package enum DeltaSeconds {
    /// The largest value the cache works with: 2^31 seconds, about 68 years.
    package static let maximum = 2_147_483_648

    /// The value of `text`, or `nil` when it is empty or holds anything but digits
    /// (`7200.0`, `+5`, `-1`, `1e300` and `inf` are all invalid).
    package static func parse<Text: StringProtocol>(_ text: Text) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            // value stays at or below 2^31, so value * 10 + 9 cannot overflow an Int.
            value = min(maximum, value * 10 + Int(byte - 0x30))
        }
        return value
    }

    /// Whole seconds of a non-negative interval for a generated field (`Age`), clamped to
    /// 0...2^31, whatever the interval (an infinite or NaN one gives the bounds).
    package static func string(_ interval: Double) -> String {
        guard interval < Double(maximum) else { return String(maximum) }
        guard interval >= 1 else { return "0" }
        return String(Int(interval.rounded(.down)))
    }
}
