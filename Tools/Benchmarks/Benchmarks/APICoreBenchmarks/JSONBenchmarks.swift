import APICore
import Benchmark
import Foundation

// The JSON parser (`JSONValue.parse`) on the two bodies the kits read most: a 1,000-transaction
// GraphQL response (187 KB, mostly ASCII) and the same response with non-ASCII text in every
// description (the UTF-8 validation path), against `JSONSerialization` on the same bytes. Run
// before and after a parser change with `--filter "JSON.*"` to compare.

/// The 1,000-transaction response with "Café ☕ Zürich" in every description.
let unicodeTransactionsBody: Data = {
    let text = String(decoding: transactionsBody(1_000), as: UTF8.self)
        .replacingOccurrences(of: "Card payment", with: "Café ☕ Zürich")
    return Data(text.utf8)
}()

func jsonBenchmarks() {
    let fast = Benchmark.Configuration(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))
    for (label, body) in [("ASCII", transactionsBody(1_000)), ("UTF-8", unicodeTransactionsBody)] {
        Benchmark("JSON parse \(label) 1,000 objects: JSONValue.parse", configuration: fast) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try JSONValue.parse(body))
            }
        }
        Benchmark("JSON parse \(label) 1,000 objects: JSONSerialization (baseline)", configuration: fast) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try JSONSerialization.jsonObject(with: body))
            }
        }
    }
    Benchmark("JSON parse catalog page: JSONValue.parse", configuration: fast) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONValue.parse(page))
        }
    }
}
