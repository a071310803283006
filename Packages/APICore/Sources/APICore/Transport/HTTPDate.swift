import Foundation

/// Parses HTTP dates by the grammar of RFC 9110 §5.6.7, each form exactly:
/// - IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`
/// - the obsolete RFC 850 form `Sunday, 06-Nov-94 08:49:37 GMT`
/// - the obsolete asctime form `Sun Nov  6 08:49:37 1994`
///
/// Anything else (a missing comma, doubled spaces, a one-digit hour, a four-digit year in the RFC 850
/// form, a day the month does not have) is an invalid date and gives `nil`; an invalid `Expires` then
/// means "already expired". Every number is a fixed count of digits, so no value from the network can
/// overflow the arithmetic. Leading and trailing spaces or tabs (the field's OWS) are ignored.
package enum HTTPDate {
    private static let months: [[UInt8]] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun",
        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ].map { Array($0.utf8) }
    private static let shortDays: [[UInt8]] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let longDays: [[UInt8]] = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
        "Saturday", "Sunday",
    ].map { Array($0.utf8) }

    package static func parse(_ text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return imfFixdate(bytes) ?? rfc850(bytes) ?? asctime(bytes)
    }

    /// `day-name "," SP day SP month SP year SP time-of-day SP "GMT"`
    private static func imfFixdate(_ bytes: ArraySlice<UInt8>) -> Date? {
        var cursor = Cursor(bytes: bytes)
        guard cursor.word(in: shortDays) != nil, cursor.literal(","), cursor.literal(" "),
            let day = cursor.digits(2), cursor.literal(" "),
            let month = cursor.word(in: months), cursor.literal(" "),
            let year = cursor.digits(4), cursor.literal(" "),
            let seconds = cursor.timeOfDay(), cursor.literal(" GMT"), cursor.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, seconds: seconds)
    }

    /// `day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT"`
    private static func rfc850(_ bytes: ArraySlice<UInt8>) -> Date? {
        var cursor = Cursor(bytes: bytes)
        guard cursor.word(in: longDays) != nil, cursor.literal(","), cursor.literal(" "),
            let day = cursor.digits(2), cursor.literal("-"),
            let month = cursor.word(in: months), cursor.literal("-"),
            let shortYear = cursor.digits(2), cursor.literal(" "),
            let seconds = cursor.timeOfDay(), cursor.literal(" GMT"), cursor.isAtEnd
        else { return nil }
        // A two-digit year: 70–99 are the 1900s, 00–69 the 2000s.
        let year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
        return date(year: year, month: month + 1, day: day, seconds: seconds)
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year`
    private static func asctime(_ bytes: ArraySlice<UInt8>) -> Date? {
        var cursor = Cursor(bytes: bytes)
        guard cursor.word(in: shortDays) != nil, cursor.literal(" "),
            let month = cursor.word(in: months), cursor.literal(" ")
        else { return nil }
        let day: Int
        if cursor.literal(" ") {
            guard let digit = cursor.digits(1) else { return nil }
            day = digit
        } else {
            guard let digits = cursor.digits(2) else { return nil }
            day = digits
        }
        guard cursor.literal(" "), let seconds = cursor.timeOfDay(), cursor.literal(" "),
            let year = cursor.digits(4), cursor.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, seconds: seconds)
    }

    private struct Cursor {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }

        /// Two bytes equal but for the case of an ASCII letter.
        static func sameLetter(_ a: UInt8, _ b: UInt8) -> Bool {
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: count)
            guard bytes.prefix(count).elementsEqual(expected, by: Self.sameLetter) else { return false }
            bytes = bytes.dropFirst(count)
            return true
        }

        /// The index of the word that comes next, in any case: the grammar's `%s"…"` strings are
        /// case-sensitive, but senders get them wrong (`gMT`, `tHU`, `aug`) and caches read them anyway;
        /// the suite's optimal behaviour is to parse them, and a date that still does not parse is
        /// "already expired".
        mutating func word(in words: [[UInt8]]) -> Int? {
            for (index, word) in words.enumerated() where bytes.starts(with: word, by: Self.sameLetter) {
                bytes = bytes.dropFirst(word.count)
                return index
            }
            return nil
        }

        /// Exactly `count` ASCII digits (at most 4, so the value stays small).
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count >= count else { return nil }
            var value = 0
            for byte in bytes.prefix(count) {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            bytes = bytes.dropFirst(count)
            return value
        }

        /// `hour ":" minute ":" second`, two digits each: 00–23, 00–59, 00–60 (a leap second).
        mutating func timeOfDay() -> Int? {
            guard let hour = digits(2), hour < 24, literal(":"), let minute = digits(2), minute < 60,
                literal(":"), let second = digits(2), second <= 60
            else { return nil }
            return hour * 3600 + minute * 60 + second
        }
    }

    private static func date(year: Int, month: Int, day: Int, seconds: Int) -> Date? {
        guard (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days) * 86_400 + Double(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm); the year is
    /// 0...9999 here, so nothing overflows.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
