import Foundation

/// The contacts API's dates: ISO 8601 in UTC (`2026-11-26T14:55:00Z`), read and written by hand in that
/// common form (a sync reads and writes ten thousand), and through Foundation in every other form (fractions of
/// a second, offsets, years outside 1600 to 9999, before which Foundation's calendar is Julian). `ContactRowTests` holds both ways to Foundation's.
enum WireDate {
    /// `date` to the second, as JSONEncoder's `.iso8601` writes it.
    static func format(_ date: Date) -> String {
        // Years 1600 to 9999 by hand: Foundation's calendar is Julian before 1582, and far dates do not fit an Int.
        let interval = date.timeIntervalSince1970
        guard interval >= -11_676_096_000, interval < 253_402_300_800 else { return date.formatted(.iso8601) }
        let seconds = Int(interval.rounded(.down))
        let (days, time) = (floorDivide(seconds, 86_400), seconds - floorDivide(seconds, 86_400) * 86_400)
        // Days since 1970 to a civil date (the proleptic Gregorian calendar), after Howard Hinnant's algorithm.
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (1_600...9_999).contains(year) else { return date.formatted(.iso8601) }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let paddedYear = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return "\(paddedYear)-\(two(month))-\(two(day))T\(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }

    /// The date `text` names in ISO 8601, with or without fractions of a second; `nil` when it names none.
    static func parse(_ text: String) -> Date? {
        if let date = parseWholeSeconds(text) { return date }
        return try? Date(text, strategy: .iso8601)
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` with every field in range, else `nil`.
    private static func parseWholeSeconds(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), year >= 1_600, (1...12).contains(month), hour < 24, minute < 60,
            second < 60
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        // A civil date to days since 1970, after Howard Hinnant's algorithm.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return value % divisor != 0 && value < 0 ? quotient - 1 : quotient
    }
}
