import Foundation

/// How ``SearchIndex`` reads text: folded to lowercase without diacritics ("Zoë" reads "zoe"), cut into
/// words of letters and digits, and phone numbers reduced to their digits.
enum SearchText {
    /// `text` in lowercase without diacritics, as Foundation folds it (case, diacritics and width).
    static func fold(_ text: String) -> String {
        if let bytes = latinFold(text) { return String(decoding: bytes, as: UTF8.self) }
        return foundationFold(text)
    }

    /// Foundation's folding of `text` (case, diacritics and width), composed (NFC): the index sorts terms as
    /// `String` does, by their composed scalars, and finds a prefix by its UTF-8 bytes, which agree only on
    /// composed text (a term that starts with a prefix is then next to every other that does).
    private static func foundationFold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// The words of `text`, folded: runs of letters and digits.
    static func words(_ text: String) -> [String] {
        guard let folded = latinFold(text) else {
            return foundationFold(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
        }
        return folded.split {
            !((UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0))
        }
        .map { String(decoding: $0, as: UTF8.self) }
    }

    /// `text` folded scalar by scalar when it holds only ASCII and Latin letters that fold to ASCII letters
    /// (`Zoë`, `Ångström`, `Müller`), the names a contacts app mostly holds, about ten times faster than
    /// Foundation; `nil` for anything else (a combining mark, another script), which Foundation folds.
    static func latinFold(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                bytes.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte)
            } else if latinFolds.indices.contains(Int(value) - 0xC0), let folded = latinFolds[Int(value) - 0xC0] {
                bytes.append(contentsOf: folded)
            } else {
                return nil
            }
        }
        return bytes
    }

    /// What Foundation folds each letter of U+00C0 to U+024F to, for those it folds to ASCII letters alone.
    private static let latinFolds: [[UInt8]?] = (UInt32(0xC0)...0x24F).map { value in
        guard let scalar = Unicode.Scalar(value) else { return nil }
        let bytes = Array(foundationFold(String(Character(scalar))).utf8)
        return !bytes.isEmpty && bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } ? bytes : nil
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
