/// A strict RFC 4180 reader, the fuzz targets' own: what a warehouse's loader expects of the CSV
/// export. Fields are separated by commas and records end with LF or CRLF; a field is either
/// unquoted (no quote, CR or LF in it) or wholly quoted, a quote inside doubled. Anything else
/// (a stray quote, text after a closing quote, an unclosed quote) is refused: `nil`.
enum RFC4180 {
    static func records(_ bytes: [UInt8]) -> [[[UInt8]]]? {
        var records: [[[UInt8]]] = []
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var at = 0
        var startOfField = true
        while at < bytes.count {
            let byte = bytes[at]
            if startOfField && byte == UInt8(ascii: "\"") {
                at += 1
                while true {
                    guard at < bytes.count else { return nil }
                    if bytes[at] == UInt8(ascii: "\"") {
                        if at + 1 < bytes.count && bytes[at + 1] == UInt8(ascii: "\"") {
                            field.append(UInt8(ascii: "\""))
                            at += 2
                            continue
                        }
                        at += 1
                        break
                    }
                    field.append(bytes[at])
                    at += 1
                }
                guard at == bytes.count || [UInt8(ascii: ","), 0x0A, 0x0D].contains(bytes[at]) else { return nil }
                startOfField = false
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                fields.append(field)
                field = []
                startOfField = true
            case 0x0D:
                guard at + 1 < bytes.count, bytes[at + 1] == 0x0A else { return nil }
            case 0x0A:
                fields.append(field)
                field = []
                startOfField = true
                records.append(fields)
                fields = []
            case UInt8(ascii: "\""):
                return nil
            default:
                field.append(byte)
                startOfField = false
            }
            at += 1
        }
        guard fields.isEmpty && field.isEmpty && startOfField else { return nil }
        return records
    }
}
