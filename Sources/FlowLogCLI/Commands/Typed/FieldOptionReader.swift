import ArgumentParser
import Deciding
import FlowLogStore

/// Reads a typed command's field options (the arguments ArgumentParser leaves over) into a blank
/// payload of its kind, against the kind's declared fields: `--OPTION VALUE` or `--OPTION=VALUE`,
/// or `--OPTION` alone for a flag. Identifiers and text are taken as given (the command's own field
/// checks judge them), prices are decimal text (`MoneyText`), quantities, percents and tabs whole
/// numbers. An unknown, repeated or missing option, or a value that is not of its type, is a usage
/// error (exit 64) naming the option.
struct FieldOptionReader: FieldVisitor {
    private enum Given {
        case text(String)
        case number(Int)
        case flag
    }

    /// By option name, without the dashes.
    private var given: [String: Given] = [:]
    /// The first price that is not decimal text; reported after every missing option, as before.
    private var malformedPrice: ValidationError?

    static func payload<Payload: CommandPayload>(_ type: Payload.Type, from arguments: [String]) throws -> Payload {
        var reader = try FieldOptionReader(arguments, options: Payload.fieldList.map(FieldOption.init))
        var payload = Payload()
        try payload.visitFields(&reader)
        if let malformedPrice = reader.malformedPrice { throw malformedPrice }
        return payload
    }

    private init(_ arguments: [String], options: [FieldOption]) throws {
        let byName = Dictionary(options.map { ($0.optionName, $0) }, uniquingKeysWith: { first, _ in first })
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard Self.isOption(argument) else { throw ValidationError("Unexpected argument '\(TerminalText.escaped(argument))'") }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let attached = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            guard argument.hasPrefix("--"), let option = byName[name] else {
                throw ValidationError("Unknown option '\(TerminalText.escaped(argument.hasPrefix("--") ? "--" + name : argument))'")
            }
            guard given[name] == nil else {
                throw option.usageError("The option '\(option.name)' was given more than once; give it once.")
            }
            if option.isFlag {
                if let attached {
                    throw ValidationError(
                        "The option '\(option.name)' does not take any value, but '\(TerminalText.escaped(attached))' was specified.")
                }
                given[name] = .flag
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else if index < arguments.endIndex, !Self.isOption(arguments[index]) || Self.isNegativeNumber(arguments[index]) {
                value = arguments[index]
                index += 1
            } else {
                throw option.usageError("Missing value for '\(option.synopsis)'")
            }
            if option.takesWholeNumber {
                guard let number = ValueArguments.parseWholeNumber(value) else {
                    throw option.usageError(
                        "The value '\(TerminalText.escaped(value))' is invalid for '\(option.synopsis)': \(ValueArguments.wholeNumberProblem(value))."
                    )
                }
                given[name] = .number(number)
            } else {
                given[name] = .text(value)
            }
        }
    }

    /// As ArgumentParser splits arguments: anything that starts with a dash, but a dash alone, is
    /// an option; except that a negative number (`--price -1`) is read as the value it is, as
    /// `--price=-1` is, and left to the field checks.
    private static func isOption(_ argument: String) -> Bool {
        argument.hasPrefix("-") && argument != "-"
    }

    private static func isNegativeNumber(_ argument: String) -> Bool {
        let utf8 = argument.utf8
        guard utf8.count > 1, utf8.first == UInt8(ascii: "-") else { return false }
        let next = utf8[utf8.index(after: utf8.startIndex)]
        return (next >= 48 && next <= 57) || next == UInt8(ascii: ".")
    }

    private func missing(_ option: FieldOption) -> ValidationError {
        option.usageError("Missing expected argument '\(option.synopsis)'")
    }

    mutating func visit(_ field: Field, _ value: inout String) throws {
        let option = FieldOption(field, isOptional: false)
        guard case .text(let text)? = given[option.optionName] else { throw missing(option) }
        value = text
    }

    mutating func visit(_ field: Field, _ value: inout String?) throws {
        if case .text(let text)? = given[field.option.description] { value = text }
    }

    mutating func visit(_ field: Field, _ value: inout Int) throws {
        let option = FieldOption(field, isOptional: false)
        guard let number = number(option) else {
            guard let fallback = field.optionDefault else { throw missing(option) }
            value = fallback
            return
        }
        value = number
    }

    mutating func visit(_ field: Field, _ value: inout Int?) throws {
        value = number(FieldOption(field, isOptional: true))
    }

    mutating func visit(_ field: Field, _ value: inout Bool) throws {
        value = given[field.option.description] != nil
    }

    /// A whole number, or a price in cents; `nil` when the option was not given.
    private mutating func number(_ option: FieldOption) -> Int? {
        switch given[option.optionName] {
        case .number(let number)?: return number
        case .text(let text)?:
            if let cents = MoneyText.cents(text) { return cents }
            if malformedPrice == nil {
                let problem =
                    MoneyText.isTooLong(text)
                    ? "more than \(MoneyText.wholeDigits) digits before the point, past every price and amount (at most 1000000.00); give a smaller one"
                    : "not a price; write decimal text with at most two decimals, such as 12.50 or 100 (no exponents or separators)"
                malformedPrice = option.usageError("The value '\(TerminalText.escaped(text))' is invalid for '\(option.synopsis)': \(problem).")
            }
            return 0
        case .flag?, nil: return nil
        }
    }
}
