import Foundation

/// Repeated timings of one case: median, min and max, in seconds.
struct Timings {
    var samples: [Double] = []

    var median: Double {
        let sorted = samples.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var min: Double { samples.min() ?? .nan }
    var max: Double { samples.max() ?? .nan }

    /// The median, over runs taken in turn with `other`'s, of each run's rate (`work` in its time)
    /// against the rate of `other`'s run beside it (`otherWork`). The machine's speed drifts between
    /// runs (the same command moved by a third), and a pair shares the moment; `nil` unless the
    /// runs pair up.
    func pairedRatio(work: Double, against other: Timings, otherWork: Double) -> Double? {
        guard !samples.isEmpty, samples.count == other.samples.count else { return nil }
        return Timings(samples: zip(samples, other.samples).map { (work / $0) / (otherWork / $1) }).median
    }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Runs a program to completion with `posix_spawn` (Foundation's `Process` adds tens of milliseconds of
/// polling, which would swamp whole-process timings); returns its standard output unless `stdout`
/// names a file to write it to. Standard error passes through.
@discardableResult
func run(_ executable: String, _ arguments: [String], stdout: String? = nil, stderrToStdout: Bool = false, captureStderr: Bool = false) throws
    -> String
{
    let outputPath = stdout ?? NSTemporaryDirectory() + "/flowlog-bench-\(UInt64.random(in: 0...UInt64.max)).out"
    let errorPath = NSTemporaryDirectory() + "/flowlog-bench-\(UInt64.random(in: 0...UInt64.max)).err"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if captureStderr { posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitCode = (status >> 8) & 0xFF
    guard status & 0x7F == 0, exitCode == 0 || (arguments.first == "send" && exitCode == 1) else {
        throw BenchError("\(executable) \(arguments.joined(separator: " ")) ended with status \(status)")
    }
    if captureStderr {
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        return try String(contentsOfFile: errorPath, encoding: .utf8)
    }
    if stdout != nil { return "" }
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    return try String(contentsOfFile: outputPath, encoding: .utf8)
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The table the benchmark prints.
struct Report {
    struct Row {
        let name: String
        let unit: String
        let timings: Timings
        let work: Double
        let baselineName: String?
        let baseline: Timings?
        let baselineWork: Double
        let note: String
    }

    var rows: [Row] = []

    mutating func add(
        _ name: String, work: Double, unit: String, _ timings: Timings,
        baseline: (String, Timings, Double)? = nil, note: String = ""
    ) {
        rows.append(
            Row(
                name: name, unit: unit, timings: timings, work: work, baselineName: baseline?.0,
                baseline: baseline?.1, baselineWork: baseline?.2 ?? 0, note: note))
    }

    func render() -> String {
        func rate(_ work: Double, _ time: Double) -> String {
            let value = work / time
            return value >= 1e6
                ? String(format: "%.2fM", value / 1e6) : value >= 1e3 ? String(format: "%.1fk", value / 1e3) : String(format: "%.1f", value)
        }
        var lines = [
            "case | median | min | max | rate (median) | baseline | baseline rate (median) | ratio | note", "---|---|---|---|---|---|---|---|---",
        ]
        for row in rows {
            let t = row.timings
            var line = "\(row.name) | \(ms(t.median)) | \(ms(t.min)) | \(ms(t.max)) | \(rate(row.work, t.median)) \(row.unit)/s"
            if let baseline = row.baseline, let name = row.baselineName {
                let ratio = (row.work / t.median) / (row.baselineWork / baseline.median)
                line += " | \(name) | \(rate(row.baselineWork, baseline.median)) \(row.unit)/s | \(String(format: "%.2f", ratio))×"
                if t.samples.count > 1, let paired = t.pairedRatio(work: row.work, against: baseline, otherWork: row.baselineWork) {
                    line += String(format: " (%.2f× run by run)", paired)
                }
            } else {
                line += " | | | "
            }
            line += " | \(row.note)"
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}
