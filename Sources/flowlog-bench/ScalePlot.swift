import Foundation

/// Rate against log size for each command, as an SVG the README shows: a reader sees at a glance
/// whether anything slows down as the log grows. Hand-written (no plotting library here): a
/// log-scaled x axis of sizes, a linear y axis of rates, one line per command.
enum ScalePlot {
    static func svg(_ rows: [ScaleRow]) -> String {
        let width = 720.0, height = 420.0, left = 80.0, right = 220.0, top = 30.0, bottom = 50.0
        let sizes = Array(Set(rows.map(\.events))).sorted()
        var series: [(name: String, points: [(Int, Double)])] = []
        for command in rows.map(\.command) where !series.contains(where: { $0.name == command }) && command != "state --at (random position)" {
            series.append((command, rows.filter { $0.command == command }.map { ($0.events, $0.rate) }))
        }
        let ceiling = sizes.compactMap { size in rows.first { $0.events == size && $0.ceiling != nil }.map { (size, $0.ceiling!) } }
        series.append(("python3-lmdb walk (ceiling)", ceiling))
        let maxRate = (series.flatMap { $0.points.map(\.1) }.max() ?? 1) * 1.1
        let minSize = Double(sizes.first ?? 1), maxSize = Double(sizes.last ?? 10)
        func x(_ size: Int) -> Double {
            guard maxSize > minSize else { return left + (width - left - right) / 2 }
            return left + (log10(Double(size)) - log10(minSize)) / (log10(maxSize) - log10(minSize)) * (width - left - right)
        }
        func y(_ rate: Double) -> Double { top + (1 - rate / maxRate) * (height - top - bottom) }
        let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#17becf"]
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" font-family="sans-serif" font-size="12">"#
        svg += #"<rect width="100%" height="100%" fill="white"/>"#
        svg += #"<text x="\#(Int(left))" y="18" font-size="14">Rate against log size (events or commands a second; higher is better)</text>"#
        for step in 0...5 {
            let rate = maxRate / 5 * Double(step)
            svg += ##"<line x1="\##(left)" y1="\##(y(rate))" x2="\##(width - right)" y2="\##(y(rate))" stroke="#ddd"/>"##
            svg += #"<text x="\#(left - 6)" y="\#(y(rate) + 4)" text-anchor="end">\#(String(format: "%.1fM", rate / 1e6))</text>"#
        }
        for size in sizes {
            svg += #"<text x="\#(x(size))" y="\#(height - bottom + 18)" text-anchor="middle">\#(size / 1_000_000)M events</text>"#
        }
        for (index, line) in series.enumerated() {
            let colour = colours[index % colours.count]
            let points = line.points.map { "\(x($0.0)),\(y($0.1))" }.joined(separator: " ")
            let dash = line.name.contains("ceiling") ? #" stroke-dasharray="6 4""# : ""
            svg += #"<polyline points="\#(points)" fill="none" stroke="\#(colour)" stroke-width="2"\#(dash)/>"#
            for point in line.points { svg += #"<circle cx="\#(x(point.0))" cy="\#(y(point.1))" r="3" fill="\#(colour)"/>"# }
            let legendY = top + 20 + Double(index) * 18
            svg += #"<line x1="\#(width - right + 12)" y1="\#(legendY - 4)" x2="\#(width - right + 32)" y2="\#(legendY - 4)" stroke="\#(colour)" stroke-width="2"\#(dash)/>"#
            svg += #"<text x="\#(width - right + 38)" y="\#(legendY)">\#(line.name)</text>"#
        }
        return svg + "</svg>\n"
    }
}
