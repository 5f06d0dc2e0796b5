import Foundation

/// Inputs kept as files: a target's seed corpus (`Tests/Fuzz/<target>/`), the crashes it found
/// (`Tests/Fuzz/<target>/crashes/`), or whatever paths a person names.
package enum FuzzCorpus {
    /// Every regular file at `path`: the file itself, or the files anywhere under the folder, in
    /// name order so that a failure names the same input every time. Hidden files are left out.
    package static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [path] }
        let enumerator = FileManager.default.enumerator(atPath: path)
        var files: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            let full = path + "/" + relative
            var isSubfolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isSubfolder), !isSubfolder.boolValue { files.append(full) }
        }
        return files.sorted()
    }

    /// The bytes of `path`.
    package static func contents(of path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
