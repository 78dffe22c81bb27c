// Did-you-mean for the command line: a mistyped flag or command gets the
// closest real one (exit 2, one line on stderr).
import { describe, expect, it } from 'vitest'
import { runCli, errorLines } from './support/run_cli.js'

describe.concurrent('toolsmith: did you mean', () => {
  it.each([
    // The command's own options first.
    [['call', 'read', '{"path":"x"}', '--polcy', 'p.json'], `toolsmith: Unknown option '--polcy' — did you mean '--policy'? (see "toolsmith call --help")`],
    [['call', 'read', '{"path":"x"}', '--rot', '.'], `toolsmith: Unknown option '--rot' — did you mean '--root'? (see "toolsmith call --help")`],
    [['journal', 'audit', '--jsn'], `toolsmith: Unknown option '--jsn' — did you mean '--json'? (see "toolsmith journal --help")`],
    [['mcp', '--approval-timeout', '5000'], `toolsmith: Unknown option '--approval-timeout' — did you mean '--approval-timeout-ms'? (see "toolsmith mcp --help")`],
    [['--verison'], `toolsmith: Unknown option '--verison' — did you mean '--version'? (see "toolsmith --help")`],
    // Else another command's, named.
    [['describe', '--polcy', 'p.json'], `toolsmith: Unknown option '--polcy' — did you mean '--policy' (an option of mcp, call, demo)? (see "toolsmith describe --help")`],
    // call: a flag near no option is probably one of the tool's arguments.
    [['call', 'read', '--path', 'x'], `toolsmith: Unknown option '--path' — a tool's arguments go in its JSON argument, e.g. toolsmith call read '{"path":…}' (see "toolsmith call --help")`],
    [['call', '--pth', 'x'], `toolsmith: Unknown option '--pth' — a tool's arguments go in its JSON argument, e.g. toolsmith call TOOL '{"pth":…}' (see "toolsmith call --help")`],
    // Nothing close: as before.
    [['describe', '--bogus'], `toolsmith: Unknown option '--bogus' (see "toolsmith describe --help")`],
    // Commands.
    [['jurnal', 'audit'], 'toolsmith: Unknown command "jurnal" — did you mean "journal"? (see "toolsmith --help")'],
    [['cal', 'read', '{}'], 'toolsmith: Unknown command "cal" — did you mean "call"? (see "toolsmith --help")'],
    [['frobnicate'], 'toolsmith: Unknown command "frobnicate"; expected mcp, call, describe, demo, doctor or journal (see "toolsmith --help")'],
    // An object's own property names are not tools or providers.
    [['call', 'toString', '{}'], 'toolsmith: Unknown tool "toString"; expected read, write, edit, grep, bash (see "toolsmith call --help")'],
    [['describe', '--provider', 'constructor'], 'toolsmith: Unknown provider "constructor"; expected jsonschema, openai, openai-responses, anthropic, gemini, mcp (see "toolsmith describe --help")'],
    [['describe', '--provider', '__proto__'], 'toolsmith: Unknown provider "__proto__"; expected jsonschema, openai, openai-responses, anthropic, gemini, mcp (see "toolsmith describe --help")'],
  ])('%j', async (args, line) => {
    const run = await runCli(args, { env: { NO_COLOR: '1' } })
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(errorLines(run.stderr)).toEqual([line])
  })
})

describe.concurrent('toolsmith mcp --approval-timeout-ms', () => {
  it.each([
    [['mcp', '--approval-timeout-ms', 'soon'], 'toolsmith: --approval-timeout-ms needs a positive integer (got "soon")'],
    [['mcp', '--approval-timeout-ms', '-5'], 'toolsmith: --approval-timeout-ms needs a positive integer (got "-5")'],
    [['call', 'read', '{"path":"x"}', '--approval-timeout-ms', '5000'], 'toolsmith: Option "--approval-timeout-ms" does not apply to "call"'],
  ])('refuses %j', async (args, message) => {
    const run = await runCli(args, { env: { NO_COLOR: '1' } })
    expect(run.code).toBe(2)
    expect(errorLines(run.stderr)).toEqual([expect.stringContaining(message)])
  })

  it('is in the help', async () => {
    const run = await runCli(['mcp', '--help'])
    expect(run.stdout).toMatch(/--approval-timeout-ms N +How long such a question waits/)
  })
})
