#!/usr/bin/env node
/**
 * The `toolsmith` command: `mcp`, `call`, `describe`, `demo`, `doctor` and `journal`.
 *
 * @module
 */
import { errorSummary } from '../exceptions.js'
import { runCall } from './call.js'
import { runDemo } from './demo.js'
import { runDescribe } from './describe.js'
import { runDoctor } from './doctor.js'
import { runJournal } from './journal.js'
import { writeOut, type CliIo } from './io.js'
import { runMcp } from './mcp.js'
import { parseCommandLine } from './options.js'
import { oneLine } from './sandbox_tools.js'
import { CliUsageError, HELP } from './usage.js'
import { packageVersion } from './version.js'

const COMMANDS = { mcp: runMcp, call: runCall, describe: runDescribe, demo: runDemo, doctor: runDoctor, journal: runJournal } as const

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
    return await COMMANDS[parsed.command as keyof typeof COMMANDS](parsed, io)
  } catch (error) {
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
