import CacheKitTesting
import Foundation
import Testing

@testable import CacheKit

/// How the index reads text: Latin text scalar by scalar, everything else through Foundation, the same terms either way.
@Suite(.timeLimit(.minutes(10))) struct SearchTextTests {
    /// 3,000 random texts (ASCII letters of both cases, digits, punctuation, spaces, tabs, line ends, every
    /// Latin letter from U+00C0 to U+024F, combining marks, other scripts) folded and cut into words and phone
    /// terms as Foundation's slow way in `BruteForce` does.
    @Test func textIsFoldedAndCutAsFoundationDoesIt() {
        var random = SeededRandom(seed: 51)
        let ascii = Array("aZbY09 _-.@+()/'\"\t\r\n,;:!?#Mq7xX".unicodeScalars)
        let other = (0xC0...0x24F).compactMap(Unicode.Scalar.init) + ["\u{301}", "\u{308}", "株", "ａ", "Ω", "ǅ"]
        var words = 0
        for _ in 0..<3_000 {
            let scalars = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                Int.random(in: 0..<8, using: &random) == 0
                    ? other[Int.random(in: 0..<other.count, using: &random)] : ascii[Int.random(in: 0..<ascii.count, using: &random)]
            }
            let text = String(String.UnicodeScalarView(scalars))
            #expect(SearchText.words(text) == BruteForce.words(text), "\(text.debugDescription)")
            #expect(SearchText.fold(text) == BruteForce.fold(text), "\(text.debugDescription)")
            let all = Array(BruteForce.digits(text))
            let tails = all.count < 3 ? (all.isEmpty ? [] : [String(all)]) : (0...(all.count - 3)).map { String(all[$0...]) }
            // `BruteForce` reads a digit with a combining mark as no digit; the index, by its scalars, as one.
            if !text.unicodeScalars.contains(where: { $0 == "\u{301}" || $0 == "\u{308}" }) {
                #expect(SearchText.phoneTerms(text) == tails, "\(text.debugDescription)")
            }
            words += SearchText.words(text).count
        }
        #expect(words > 10_000, "the texts have words: \(words)")
        #expect(SearchText.words("Zoë O'Brien-Smith") == ["zoe", "o", "brien", "smith"])
        #expect(SearchText.latinFold("Ångström") != nil && SearchText.latinFold("e\u{301}") == nil, "a combining mark goes to Foundation")
    }
}
