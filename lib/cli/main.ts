#!/usr/bin/env node
/**
 * The `toolsmith` command: `mcp`, `call`, `describe`, `demo`, `doctor` and `journal`.
 *
 * @module
 */
import { errorSummary } from '../exceptions.js'
import { oneLine, writeOut, type CliIo } from './io.js'
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
 * @returns The exit code: 0 success, 1 failure, 2 usage error.
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
      await writeOut(io.stderr, `toolsmith: ${oneLine(error.message)} (see "${help}")\n`)
      return error.exitCode
    }
    await writeOut(io.stderr, `toolsmith: ${oneLine(errorSummary(error))}\n`)
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

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
})
