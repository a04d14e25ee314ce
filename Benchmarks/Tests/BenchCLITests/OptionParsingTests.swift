import Testing
@testable import BenchCLI

/// The command line's own errors: each names the option and exits 2
/// (`FSBenchTool.main` prints the message and exits 2 on any `UsageError`).
@Suite("Option parsing")
struct OptionParsingTests {
    func error(_ arguments: [String]) -> String? {
        do {
            switch try FSBenchTool.parse(arguments, columns: 100) {
            case .command(let command):
                Issue.record("\(arguments) parsed: \(command.mode)")
            case .help:
                Issue.record("\(arguments) printed the help")
            }
            return nil
        } catch {
            return error.description
        }
    }

    func command(_ arguments: [String]) throws -> FSBenchCommand {
        guard case .command(let command) = try FSBenchTool.parse(arguments) else {
            Issue.record("\(arguments) printed the help")
            return FSBenchCommand()
        }
        return command
    }

    @Test("A missing option value names the option", arguments: ["--profile", "--strategy", "--results", "--check", "--json", "--chart-dir", "--seconds", "--profiles-dir"])
    func missingValue(option: String) throws {
        let message = try #require(error(["--quick", option]))
        #expect(message.hasPrefix("fsbench: error: Missing value for '\(option) <"), "\(message)")
        #expect(message.contains("Usage: fsbench"))
    }

    @Test("An option in place of a value is not taken as the value")
    func optionAsValue() throws {
        let message = try #require(error(["--profile", "--quick"]))
        #expect(message.contains("Missing value for '--profile <name|file.json>'"), "\(message)")
    }

    @Test("A malformed number names the option")
    func badNumber() throws {
        let message = try #require(error(["--seconds", "two"]))
        #expect(message.contains("'two'") && message.contains("--seconds"), "\(message)")
        let zero = try #require(error(["--seconds", "0"]))
        #expect(zero.contains("--seconds expects a number of seconds in (0, 600], found 0.0"), "\(zero)")
    }

    @Test("An unknown option is refused")
    func unknownOption() throws {
        let message = try #require(error(["--qiuck"]))
        #expect(message.contains("Unknown option '--qiuck'"), "\(message)")
    }

    @Test("Modes do not combine, and measuring options need a measuring run")
    func modes() throws {
        #expect(error(["--list", "--validate"])?.contains("--list and --validate do not go together") == true)
        #expect(error(["--validate", "--results", "r.md"])?.contains("--results applies to a measuring run, not to --validate") == true)
        #expect(error(["--self-test", "--check", "c.json"])?.contains("--check applies to a measuring run, not to --self-test") == true)
        #expect(error(["--list", "--profile", "todo"])?.contains("drop --profile") == true)
    }

    @Test("--publish is the full run only, written where the committed results are")
    func publish() throws {
        #expect(error(["--publish", "--quick"])?.contains("--publish writes the committed results, which are the full run of every shipped profile and strategy: drop --quick") == true)
        #expect(error(["--publish", "--strategy", "faststore"])?.contains("drop --strategy") == true)
        #expect(error(["--publish", "--results", "r.md"])?.contains("drop --results") == true)
        #expect(try command(["--publish"]).publish)
    }

    @Test("Profiles come as arguments or with --profile, in order")
    func profiles() throws {
        let parsed = try command(["todo", "--profile", "feed", "my.json", "--validate"])
        #expect(parsed.profiles == ["todo", "my.json", "feed"])
        #expect(parsed.mode == .validate)
    }

    @Test("--help prints the help, not an error")
    func help() throws {
        guard case .help(let text) = try FSBenchTool.parse(["--help"], columns: 100) else {
            Issue.record("--help did not print the help")
            return
        }
        #expect(text.contains("USAGE: fsbench"))
        #expect(text.contains("--publish"))
    }
}
