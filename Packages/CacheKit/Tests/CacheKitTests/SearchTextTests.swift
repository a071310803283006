import CacheKitTesting
import Foundation
import Testing

@testable import CacheKit

/// How the index cuts text: ASCII byte by byte, everything else through Foundation, the same terms either way.
@Suite(.timeLimit(.minutes(1))) struct SearchTextTests {
    /// 3,000 random ASCII texts (letters of both cases, digits, punctuation, spaces, tabs, line ends) cut into
    /// words and phone terms as the slow way of `BruteForce` cuts them.
    @Test func asciiTextIsCutAsFoundationCutsIt() {
        var random = SeededRandom(seed: 51)
        let alphabet = Array("aZbY09 _-.@+()/'\"\t\r\n,;:!?#Mq7xX".utf8)
        var words = 0
        for _ in 0..<3_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(SearchText.words(text) == BruteForce.words(text), "\(text.debugDescription)")
            let all = Array(BruteForce.digits(text))
            let tails = all.count < 3 ? (all.isEmpty ? [] : [String(all)]) : (0...(all.count - 3)).map { String(all[$0...]) }
            #expect(SearchText.phoneTerms(text) == tails, "\(text.debugDescription)")
            words += SearchText.words(text).count
        }
        #expect(words > 10_000, "the texts have words: \(words)")
        #expect(SearchText.words("Zoë O'Brien-Smith") == ["zoe", "o", "brien", "smith"], "other text through Foundation")
    }
}
