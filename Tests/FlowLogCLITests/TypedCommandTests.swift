import ArgumentParser
import FlowDomain
import FlowLogTesting
import Testing

@testable import FlowLogCLI

@Suite("Typed commands, generated from the command kinds' declarations")
struct TypedCommandTests {
    @Test func everyDeclaredKindIsReachableWithHelpThatListsItsFieldOptions() throws {
        for info in CommandKinds.all {
            let arguments = [info.declaration.group.description, info.declaration.verb.description, "--help"]
            let result = try FlowLogProcess.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("(\(info.typeName))"), "\(arguments)")
            for field in info.fields {
                let option = "--\(field.field.option)"
                #expect(result.stdout.contains(option), "\(arguments) lists \(option)")
                #expect(result.stdout.contains(field.field.summary.description), "\(arguments) explains \(option)")
            }
            for envelope in ["--stream", "--id", "--expected-version", "--correlation-id", "--format", "--db"] {
                #expect(result.stdout.contains(envelope), "\(arguments) lists \(envelope)")
            }
        }
    }

    /// The worked example of docs/architecture.md: a kind added by its declaration alone is a
    /// typed command, goes through the pipeline, and is exported, with no other list edited.
    @Test func cartChangeQuantityIsATypedCommandThatSetsTheLinesQuantity() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log"), "--stream", "s1"]
        #expect(try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", "2.50", "--quantity", "4"] + db).status == 0)
        let changed = try FlowLogProcess.run(["cart", "change-quantity", "--product", "p1", "--quantity", "2"] + db)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("accepted cart.changeQuantity"), "\(changed.stdout)")
        let refused = try FlowLogProcess.run(["cart", "change-quantity", "--product", "p9", "--quantity", "2"] + db)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("productNotInCart") || refused.stderr.contains("productNotInCart"))
        let state = try FlowLogProcess.run(["state", "--stream", "s1", "--format", "json", "--db", folder.child("log")])
        #expect(state.stdout.contains(#""quantity":2"#), "\(state.stdout)")
        let exported = try FlowLogProcess.run(["export", "--format", "csv", "--type", "cart.quantityChanged", "--db", folder.child("log")])
        #expect(exported.stdout.split(separator: "\n").count == 2, "a header and the one event: \(exported.stdout)")
    }

    @Test func theGroupsAreTheDeclaredOnesInDeclarationOrder() throws {
        var groups: [String] = []
        for info in CommandKinds.all where !groups.contains(info.declaration.group.description) {
            groups.append(info.declaration.group.description)
        }
        #expect(TypedCommandCatalog.groupCommands.map { $0.configuration.commandName } == groups)
        for group in TypedCommandCatalog.groupCommands {
            let verbs = CommandKinds.all.filter { $0.declaration.group.description == group.configuration.commandName }.map(
                \.declaration.verb.description)
            #expect(group.configuration.subcommands.map { $0.configuration.commandName } == verbs)
        }
    }

    /// The typed commands' usage lines write the envelope's options out; they must stay what
    /// ArgumentParser would write.
    @Test func theWrittenOutUsageOfTheEnvelopeIsArgumentParsersOwn() {
        struct Envelope: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "typed")
            @OptionGroup var envelope: EnvelopeOptions
            @OptionGroup var logOptions: LogOptions
        }
        #expect(Envelope.usageString() == "typed \(EnvelopeOptions.usage) \(LogOptions.usage)")
    }

    @Test func fieldOptionsFillThePayload() throws {
        let added = try FieldOptionReader.payload(CartCommand.AddProduct.self, from: ["--price=3.5", "--product", "p1", "--name", "-"])
        #expect(
            added == CartCommand.AddProduct(productId: "p1", name: "-", unitPrice: 350, quantity: 1),
            "a dash alone is a value; --quantity defaults to 1")
        let negative = try FieldOptionReader.payload(CartCommand.AddProduct.self, from: ["--price", "-1", "--product", "p1", "--quantity", "-2"])
        #expect(negative.unitPrice == -100 && negative.quantity == -2, "a negative number is a value, for the field checks to judge")
        let removed = try FieldOptionReader.payload(CartCommand.RemoveProduct.self, from: ["--product", "p1"])
        #expect(removed.quantity == nil, "an optional field may be omitted")
        #expect(try FieldOptionReader.payload(AppLifecycleCommand.Launched.self, from: ["--has-onboarded"]).hasOnboarded)
        #expect(try !FieldOptionReader.payload(AppLifecycleCommand.Launched.self, from: []).hasOnboarded)
        #expect(try FieldOptionReader.payload(WelcomeCommand.SignUp.self, from: []) == WelcomeCommand.SignUp())
    }

    @Test(arguments: [
        (["--product", "p1"], "Missing expected argument '--price <price>'"),
        (["--product", "p1", "--price", "1", "--price", "2"], "The option '--price' was given more than once"),
        (["--product", "p1", "--price", "1", "--colour", "red"], "Unknown option '--colour'"),
        (["--product", "p1", "--price", "1", "-q"], "Unknown option '-q'"),
        (["--product", "p1", "--price", "1", "stray"], "Unexpected argument 'stray'"),
        (["--product", "p1", "--price", "1", "--quantity", "2.5"], "The value '2.5' is invalid for '--quantity <quantity>': not a whole number"),
        (
            ["--product", "p1", "--price", "1.234"],
            "The value '1.234' is invalid for '--price <price>': not a price; write decimal text with at most two decimals, such as 12.50"
        ),
        (["--product", "p1", "--price"], "Missing value for '--price <price>'"),
        (["--product", "p1", "--price", "1", "--name=a\u{1B}[2Jb", "--x\u{202E}"], "Unknown option '--x\\u{202E}'"),
    ])
    func whatDoesNotFitIsAUsageErrorNamingTheOption(arguments: [String], message: String) {
        #expect {
            _ = try FieldOptionReader.payload(CartCommand.AddProduct.self, from: arguments)
        } throws: { error in
            (error as? ValidationError)?.message.hasPrefix(message) == true
        }
    }

    @Test func aFlagTakesNoValue() {
        #expect(throws: ValidationError.self) {
            _ = try FieldOptionReader.payload(AppLifecycleCommand.Launched.self, from: ["--has-onboarded=yes"])
        }
    }
}
