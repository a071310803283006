import Foundation

/// The resident-memory curve as a small SVG: megabytes against minutes, with each story's end marked.
enum Plot {
    struct Sample {
        var seconds: Double
        var megabytes: Double
    }

    static func svg(_ samples: [Sample], loops: [Double], title: String) -> String {
        let width = 640.0
        let height = 320.0
        let left = 56.0
        let right = 16.0
        let top = 32.0
        let bottom = 40.0
        let maxSeconds = max(samples.last?.seconds ?? 1, 1)
        let maxMegabytes = max((samples.map(\.megabytes).max() ?? 1) * 1.15, 1)
        func x(_ seconds: Double) -> Double { left + seconds / maxSeconds * (width - left - right) }
        func y(_ megabytes: Double) -> Double { height - bottom - megabytes / maxMegabytes * (height - top - bottom) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="18" font-size="13">\(title)</text>

            """
        for tick in stride(from: 0.0, through: maxMegabytes, by: gridStep(maxMegabytes)) {
            svg += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(y(tick))\" y2=\"\(y(tick))\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(y(tick) + 4)\" text-anchor=\"end\">\(Int(tick)) MB</text>\n"
        }
        for minute in stride(from: 0.0, through: maxSeconds / 60, by: max(1, (maxSeconds / 60 / 10).rounded(.up))) {
            svg += "<text x=\"\(x(minute * 60))\" y=\"\(height - bottom + 16)\" text-anchor=\"middle\">\(Int(minute)) min</text>\n"
        }
        for end in loops {
            svg += "<line x1=\"\(x(end))\" x2=\"\(x(end))\" y1=\"\(height - bottom)\" y2=\"\(height - bottom + 4)\" stroke=\"#999\"/>"
        }
        let points = samples.map { String(format: "%.1f,%.1f", x($0.seconds), y($0.megabytes)) }.joined(separator: " ")
        svg += "\n<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\" points=\"\(points)\"/>\n</svg>\n"
        return svg
    }

    private static func gridStep(_ maximum: Double) -> Double {
        for step in [10.0, 20, 50, 100, 200, 500] where maximum / step <= 8 { return step }
        return 1_000
    }
}
