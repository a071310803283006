import Foundation

/// Parses HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate form `Sun, 06 Nov 1994 08:49:37 GMT`, and
/// the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`)
/// forms. Invalid dates give `nil` (an invalid `Expires` then means "already expired").
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        switch words.count {
        case 6 where words[5] == "GMT":           // Sun, 06 Nov 1994 08:49:37 GMT
            day = Int(words[1]); month = monthIndex(words[2]); year = Int(words[3]); time = clock(words[4])
        case 4 where words[3] == "GMT":           // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let shortYear = Int(parts[2]) else { return nil }
            day = Int(parts[0]); month = monthIndex(parts[1]); time = clock(words[2])
            year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
        case 5:                                   // Sun Nov  6 08:49:37 1994
            month = monthIndex(words[1]); day = Int(words[2]); time = clock(words[3]); year = Int(words[4])
        default:
            return nil
        }
        guard let day, let month, let year, let time, (1...31).contains(day) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]))
    }

    private static func monthIndex(_ word: String) -> Int? {
        months.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }

    private static func clock(_ word: String) -> [Int]? {
        let parts = word.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3, parts[0] < 24, parts[1] < 60, parts[2] <= 60 else { return nil }
        return parts
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
