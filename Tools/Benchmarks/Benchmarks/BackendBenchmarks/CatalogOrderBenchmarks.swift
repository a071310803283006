import Benchmark
import CatalogKit
import Foundation

// A page's funnels in the catalog's order (`CatalogPage.funnels`, which sorts them at every read), against the
// comparator it replaced in the same run: both titles folded to lower ASCII whole, compared, then the slugs.

func catalogOrderBenchmarks() {
    let page = orderBenchmarkPage()
    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 5_000)
    Benchmark("Catalog order: a page of 50 funnels sorted (CatalogPage.funnels)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(page.funnels) }
    }
    Benchmark("Catalog order: a page of 50 funnels sorted by the previous comparator (baseline)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole((page.pillars.flatMap(\.funnels) + page.uncategorizedFunnels).sorted(by: previousCatalogOrder))
        }
    }
}

/// Five pillars of ten funnels, titled as the reference backend's are, in no order.
private func orderBenchmarkPage() -> CatalogPage {
    var random = SystemRandomNumberGenerator()
    let words = ["Anxiety", "stress", "Sleep", "focus", "Mood", "burnout", "Calm", "energy", "Habits", "grief"]
    let pillars = (0..<5).map { pillar in
        PillarWithFunnels(
            pillar: CatalogPillar(id: "p\(pillar)", title: "Pillar \(pillar)"),
            funnels: (0..<10).map { index in
                let title = "\(words.randomElement(using: &random) ?? "") \(words.randomElement(using: &random) ?? "") program"
                return CatalogFunnel(id: "\(pillar)-\(index)", slug: "funnel-\(pillar)-\(index)", title: title)
            })
    }
    return CatalogPage(pillars: pillars, pagination: nil)
}

/// The comparator before: both titles folded whole, then compared, then the slugs.
private func previousCatalogOrder(_ lhs: CatalogFunnel, _ rhs: CatalogFunnel) -> Bool {
    func fold(_ byte: UInt8) -> UInt8 { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte }
    let left = lhs.title.utf8.lazy.map(fold)
    let right = rhs.title.utf8.lazy.map(fold)
    if !left.elementsEqual(right) { return left.lexicographicallyPrecedes(right) }
    return lhs.slug.utf8.lexicographicallyPrecedes(rhs.slug.utf8)
}
