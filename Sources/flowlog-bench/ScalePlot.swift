import Foundation

/// Rate against log size for each command, as an SVG the README shows: a reader sees at a glance
/// whether anything slows down as the log grows. Hand-written (no plotting library here): a
/// log-scaled x axis of sizes, a linear y axis of rates, one line per command.
///
/// Two panels, each with its own rate axis: the whole-log commands (millions of events a second,
/// with the python3-lmdb walk as their ceiling) above, `send` (commands a second, into the log and
/// into an empty one) below. On one axis the `send` lines sat flat on the floor of a scale made for
/// millions, and how they part as the log grows could not be seen.
enum ScalePlot {
    static func svg(_ rows: [ScaleRow]) -> String {
        let sizes = Array(Set(rows.map(\.events))).sorted()
        var reading: [Series] = []
        var sending: [Series] = []
        for command in rows.map(\.command) where command != "state --at (random position)" {
            guard !(reading + sending).contains(where: { $0.name == command }) else { continue }
            let line = Series(name: command, points: rows.filter { $0.command == command }.map { ($0.events, $0.rate) })
            if command.hasPrefix("send") { sending.append(line) } else { reading.append(line) }
        }
        let ceiling = sizes.compactMap { size in rows.first { $0.events == size && $0.ceiling != nil }.map { (size, $0.ceiling!) } }
        reading.append(Series(name: "python3-lmdb walk (ceiling)", points: ceiling, dashed: true))

        let frame = Frame(sizes: sizes)
        var svg =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(frame.width))" height="\#(Int(frame.height))" font-family="sans-serif" font-size="12">"#
        svg += #"<rect width="100%" height="100%" fill="white"/>"#
        svg += #"<text x="\#(Int(frame.left))" y="18" font-size="14">Rate against log size (higher is better)</text>"#
        svg += frame.panel(reading, title: "events a second", top: 56, height: 234, unit: 1e6, suffix: "M", colours: 0)
        svg += frame.panel(sending, title: "commands a second", top: 350, height: 160, unit: 1e3, suffix: "k", colours: reading.count)
        for size in sizes {
            svg += #"<text x="\#(frame.x(size))" y="\#(frame.height - 12)" text-anchor="middle">\#(size / 1_000_000)M events</text>"#
        }
        return svg + "</svg>\n"
    }

    struct Series {
        let name: String
        let points: [(Int, Double)]
        var dashed = false
    }

    /// The shared x axis (log-scaled sizes) and the legend column on the right.
    struct Frame {
        let width = 860.0, height = 550.0, left = 80.0, right = 300.0
        let minSize: Double, maxSize: Double
        static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#17becf", "#8c564b", "#7f7f7f", "#e377c2", "#bcbd22"]

        init(sizes: [Int]) {
            (minSize, maxSize) = (Double(sizes.first ?? 1), Double(sizes.last ?? 10))
        }

        func x(_ size: Int) -> Double {
            guard maxSize > minSize else { return left + (width - left - right) / 2 }
            return left + (log10(Double(size)) - log10(minSize)) / (log10(maxSize) - log10(minSize)) * (width - left - right)
        }

        /// One panel: grid lines labelled in `unit`s, a line and a legend entry per series.
        func panel(_ series: [Series], title: String, top: Double, height: Double, unit: Double, suffix: String, colours first: Int) -> String {
            let maxRate = (series.flatMap { $0.points.map(\.1) }.max() ?? 1) * 1.1
            func y(_ rate: Double) -> Double { top + (1 - rate / maxRate) * height }
            var svg = #"<text x="\#(left)" y="\#(top - 8)">\#(title)</text>"#
            for step in 0...4 {
                let rate = maxRate / 4 * Double(step)
                let label = unit >= 1e6 ? String(format: "%.1f", rate / unit) : String(format: "%.0f", rate / unit)
                svg += ##"<line x1="\##(left)" y1="\##(y(rate))" x2="\##(width - right)" y2="\##(y(rate))" stroke="#ddd"/>"##
                svg += #"<text x="\#(left - 6)" y="\#(y(rate) + 4)" text-anchor="end">\#(label)\#(suffix)</text>"#
            }
            for (index, line) in series.enumerated() {
                let colour = Self.colours[(first + index) % Self.colours.count]
                let dash = line.dashed ? #" stroke-dasharray="6 4""# : ""
                let points = line.points.map { "\(x($0.0)),\(y($0.1))" }.joined(separator: " ")
                svg += #"<polyline points="\#(points)" fill="none" stroke="\#(colour)" stroke-width="2"\#(dash)/>"#
                for point in line.points { svg += #"<circle cx="\#(x(point.0))" cy="\#(y(point.1))" r="3" fill="\#(colour)"/>"# }
                let legendY = top + 12 + Double(index) * 18
                svg +=
                    #"<line x1="\#(width - right + 12)" y1="\#(legendY - 4)" x2="\#(width - right + 32)" y2="\#(legendY - 4)" stroke="\#(colour)" stroke-width="2"\#(dash)/>"#
                svg += #"<text x="\#(width - right + 38)" y="\#(legendY)">\#(line.name)</text>"#
            }
            return svg
        }
    }
}
