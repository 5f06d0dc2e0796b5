import FlowLogCLI

CommandLineProgram.run(Array(CommandLine.arguments.dropFirst()))
