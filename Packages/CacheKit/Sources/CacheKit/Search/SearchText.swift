import Foundation

/// How ``SearchIndex`` reads text: folded to lowercase without diacritics ("Zoë" reads "zoe"), cut into
/// words of letters and digits, and phone numbers reduced to their digits.
enum SearchText {
    /// `text` in lowercase without diacritics; ASCII text is lowered byte by byte (the common case,
    /// about ten times faster than Foundation's folding), anything else through Foundation.
    static func fold(_ text: String) -> String {
        var ascii = true
        for byte in text.utf8 where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The words of `text`, folded: runs of letters and digits. ASCII text is cut byte by byte (a sync
    /// indexes thousands of records a page, and `Character`'s properties cost ten times more).
    static func words(_ text: String) -> [String] {
        let utf8 = text.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            return fold(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
        }
        var words: [String] = []
        var word: [UInt8] = []
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte + 0x20)
            default:
                if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
                word.removeAll(keepingCapacity: true)
            }
        }
        if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
        return words
    }

    /// The digits of a phone number, whatever its formatting (`+1 (555) 010-2030` gives `15550102030`).
    static func digits(_ text: String) -> String {
        String(decoding: digitBytes(text), as: UTF8.self)
    }

    private static func digitBytes(_ text: String) -> [UInt8] {
        text.utf8.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The terms a phone number is found by: every tail of its digits at least three long, so that any
    /// run of its digits that ends it, or starts after a country or area code, matches as a prefix.
    static func phoneTerms(_ text: String) -> [String] {
        let digits = digitBytes(text)
        guard digits.count >= 3 else { return digits.isEmpty ? [] : [String(decoding: digits, as: UTF8.self)] }
        return (0...(digits.count - 3)).map { String(decoding: digits[$0...], as: UTF8.self) }
    }

    /// What a query searches for: one term of digits when it reads as a phone number (digits and
    /// `+ ( ) - . /` and spaces only, at least three digits), else its words.
    static func queryTerms(_ query: String) -> [String] {
        let phoneCharacters = Set("0123456789+()-./ ")
        if query.allSatisfy({ phoneCharacters.contains($0) }) {
            let digits = digits(query)
            if digits.count >= 3 { return [digits] }
        }
        return words(query)
    }
}
