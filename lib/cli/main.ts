#!/usr/bin/env node
/**
 * The `toolsmith` command: `mcp`, `call`, `describe`, `demo`, `doctor` and `journal`.
 *
 * @module
 */
import { errorSummary } from '../exceptions.js'
import { oneLine, paint, writeOut, type CliIo } from './io.js'
import { parseCommandLine, type ParsedCommandLine } from './options.js'
import { jsonFailure, wantsJson, writeJsonFailure } from './json_output.js'
import { CliUsageError, HELP } from './usage.js'
import { packageVersion } from './version.js'

type Command = (parsed: ParsedCommandLine, io: CliIo) => Promise<number>

// Each command's module is imported when that command runs: `toolsmith mcp`
// then loads neither the demo's model and `diff`, nor `call`'s output code,
// nor the journal audit; `--version` and `--help` load none of them. Start-up
// is most of what an MCP client waits for (bench figure `mcp`, row
// `mcp-startup`). Literal specifiers, so the bundler sees every command.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  mcp: async () => (await import('./mcp.js')).runMcp,
  call: async () => (await import('./call.js')).runCall,
  describe: async () => (await import('./describe.js')).runDescribe,
  demo: async () => (await import('./demo.js')).runDemo,
  doctor: async () => (await import('./doctor.js')).runDoctor,
  journal: async () => (await import('./journal.js')).runJournal,
}

/**
 * Run the program.
 *
 * @param argv - The arguments after the script path.
 * @param io - The streams.
 * @returns The exit code: 0 success, 1 failure, 2 usage error (the process
 *   entry turns any of them into 130 when Ctrl-C interrupted the command).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const parsed = parseCommandLine(argv)
    if (parsed.version && parsed.command === undefined) {
      await writeOut(io.stdout, `${packageVersion()}\n`)
      return 0
    }
    if (parsed.help) {
      await writeOut(io.stdout, `${HELP[parsed.command ?? '']}\n`)
      return 0
    }
    if (parsed.command === undefined) {
      await writeOut(io.stderr, `${HELP['']}\n`)
      return 2
    }
    const run = await COMMANDS[parsed.command]!()
    return await run(parsed, io)
  } catch (error) {
    // `--json` asked for one JSON document on stdout: a usage error or a failure before the call is one too.
    if (wantsJson(argv)) return await writeJsonFailure(io, jsonFailure(error, error instanceof CliUsageError ? error.exitCode : 1))
    if (error instanceof CliUsageError) {
      const help = error.command ? `toolsmith ${error.command} --help` : 'toolsmith --help'
      await writeOut(io.stderr, `toolsmith: ${paint(io.stderr, 'error', oneLine(error.message))} ${paint(io.stderr, 'dim', `(see "${help}")`)}\n`)
      return error.exitCode
    }
    await writeOut(io.stderr, `toolsmith: ${paint(io.stderr, 'error', oneLine(errorSummary(error)))}\n`)
    return 1
  }
}

// A reader that stops early (`toolsmith demo | head`) is not an error worth a
// stack trace: keep going quietly so the command still cleans up after itself.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
}

/** The exit code of a command interrupted by Ctrl-C (SIGINT): 128 + 2, as shells report it. */
const INTERRUPTED = 130

// Ctrl-C ends every command with 130. A command that listens for SIGINT
// itself (call, mcp, demo) stops its work there and cleans up (the running bash
// command and its process group killed, the journal closed), then returns:
// its exit code becomes 130. One that does not listen has nothing of its own
// to clean up and ends at once (commands still running are killed by the
// sandbox's exit hook). A second Ctrl-C ends at once in any case.
let interrupted = false
process.on('SIGINT', () => {
  const waitForCleanup = !interrupted && process.listenerCount('SIGINT') > 1
  interrupted = true
  if (!waitForCleanup) process.exit(INTERRUPTED)
})

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
})
process.exitCode = interrupted ? INTERRUPTED : code
