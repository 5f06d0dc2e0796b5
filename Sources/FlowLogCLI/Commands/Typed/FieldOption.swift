import ArgumentParser
import Deciding

/// A command field as a command-line option: `--price <price>`, or `--has-onboarded` for a flag.
/// Everything here comes from the field's declaration: its option name, type, summary and default.
struct FieldOption {
    let field: Field
    /// The payload's field may be absent (`--name`, a whole-cart `--product`).
    let isOptional: Bool

    init(_ field: Field, isOptional: Bool) {
        self.field = field
        self.isOptional = isOptional
    }

    init(_ description: FieldDescription) {
        self.init(description.field, isOptional: description.optional)
    }

    /// The name without its dashes: `price`.
    var optionName: String { field.option.description }
    var name: String { "--" + optionName }
    var isFlag: Bool { field.type.form == .bool }

    var takesWholeNumber: Bool { field.type.isWholeNumber }

    /// `--price <price>`, or the name alone for a flag.
    var synopsis: String { isFlag ? name : "\(name) <\(optionName)>" }

    /// Whether the command line may leave it out: optional, a flag, or with a default.
    var mayBeOmitted: Bool { isOptional || isFlag || field.optionDefault != nil }

    /// As the usage line shows it: `[--name <name>]` for one that may be left out.
    var usage: String { mayBeOmitted ? "[\(synopsis)]" : synopsis }

    /// The declared summary, with how to write a price and the default, where there is one.
    var help: String {
        var help = field.summary.description
        if field.type.isMoney { help += " As decimal text, such as 12.50." }
        if let value = field.optionDefault { help += " Default: \(value)." }
        return help
    }

    /// A usage error about this option, followed by its help, as ArgumentParser words its own.
    func usageError(_ message: String) -> ValidationError {
        ValidationError(message + "\nHelp:  \(synopsis)  \(help)")
    }
}
