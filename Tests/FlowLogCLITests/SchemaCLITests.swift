import FlowDomain
import FlowLogBasics
import FlowLogTesting
import Testing

@Suite("flowlog schema: the command and event reference, from the declarations")
struct SchemaCLITests {
    @Test func theCommandReferenceListsEveryDeclaredKindWithItsFields() throws {
        let result = try FlowLogProcess.run(["schema", "commands", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        guard case .array(let commands)? = try JSONParser.parse(result.stdout)["commands"] else {
            Issue.record("no commands array")
            return
        }
        #expect(commands.count == CommandKinds.all.count)
        for (info, command) in zip(CommandKinds.all, commands) {
            #expect(command["type"] == .string(info.typeName))
            #expect(command["command"] == .string("flowlog \(info.declaration.group) \(info.declaration.verb)"))
            guard case .array(let fields)? = command["fields"] else {
                Issue.record("\(info.typeName) has no fields array")
                continue
            }
            #expect(fields.map { $0["name"] } == info.fields.map { .string($0.field.nameText) }, "\(info.typeName)")
            #expect(fields.map { $0["option"] } == info.fields.map { .string("--\($0.field.option)") }, "\(info.typeName)")
        }
        let text = try FlowLogProcess.run(["schema", "commands"])
        #expect(text.status == 0)
        for info in CommandKinds.all { #expect(text.stdout.contains(info.typeName), "\(info.typeName)") }
    }

    @Test func theEventReferenceListsEveryDeclaredKindWithItsFields() throws {
        let result = try FlowLogProcess.run(["schema", "events", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        guard case .array(let events)? = try JSONParser.parse(result.stdout)["events"] else {
            Issue.record("no events array")
            return
        }
        #expect(events.count == EventKinds.all.count)
        for (info, event) in zip(EventKinds.all, events) {
            #expect(event["type"] == .string(info.typeName))
            #expect(event["tag"] == .integer(Int(info.declaration.tag)))
            guard case .array(let fields)? = event["fields"] else {
                Issue.record("\(info.typeName) has no fields array")
                continue
            }
            #expect(fields.map { $0["name"] } == info.fields.map { .string($0.field.nameText) }, "\(info.typeName)")
        }
        let text = try FlowLogProcess.run(["schema", "events"])
        #expect(text.status == 0)
        for info in EventKinds.all { #expect(text.stdout.contains(info.typeName), "\(info.typeName)") }
    }

    @Test func theHelpListsTheSchemaCommand() throws {
        let help = try FlowLogProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("schema "))
        let schema = try FlowLogProcess.run(["schema", "--help"])
        #expect(schema.stdout.contains("commands") && schema.stdout.contains("events"))
    }
}
