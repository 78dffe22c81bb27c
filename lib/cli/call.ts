/**
 * `toolsmith call TOOL JSON`: one tool call, result on stdout.
 *
 * @module
 */
import type { SpooledArtifactLike } from '../contracts/artifact.js'
import { isStructuredToolResult } from '../contracts/tool_result.js'
import { createCallContext } from '../core/call_context.js'
import { createDispatchContext } from '../core/dispatch_context.js'
import { E_TOOL_DOWNSTREAM_ERROR, toolFailureParts } from '../exceptions.js'
import type { ParsedCommandLine } from './options.js'
import { oneLine, readAll, writeOut, type CliIo } from './io.js'
import { commandJournal } from './journal_option.js'
import { canAskOnTerminal, commandPermissions, noTerminalApprover, terminalApprover } from './policy.js'
import { commandSandbox } from './sandbox_tools.js'
import { createTools } from '../tools/index.js'
import { CliUsageError } from './usage.js'
import { LiveEcho } from './call_live.js'
import { writeCallFailureJson, writeCallJson } from './call_json.js'
import { unknownName } from './unknown_name.js'

/**
 * Run `call`.
 *
 * @param parsed - The command line.
 * @param io - The streams.
 * @returns The exit code: 0, or 1 when the call failed.
 * @throws {@link CliUsageError} for a missing or unknown tool, or arguments that are not a JSON object.
 */
export async function runCall(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  const [name, json, ...extra] = parsed.args
  if (name === undefined || json === undefined) throw new CliUsageError('call needs TOOL and JSON arguments', 'call')
  if (extra.length > 0) throw new CliUsageError(`Unexpected argument "${extra[0]}" (quote the JSON as one argument)`, 'call')
  if (parsed.json && parsed.stream) throw new CliUsageError('--stream and --json exclude each other (--json prints one document at the end)', 'call')
  const sandbox = commandSandbox(parsed.sandbox, 'call')
  const tools = createTools(sandbox)
  // Own names only: `toString` or `__proto__` is an unknown tool, not an object's property.
  const tool = Object.hasOwn(tools, name) ? (tools as unknown as Record<string, (typeof tools)[keyof typeof tools]>)[name] : undefined
  if (!tool) throw unknownName('tool', name, Object.keys(tools), 'call')
  const args = parseJsonArgs(json === '-' ? await readAll(io.stdin) : json)

  // `ask` is put to the user when there is one at a terminal; otherwise it denies, saying why.
  const asker = canAskOnTerminal(io) ? { approve: terminalApprover(io.stdin, io.stderr), name: 'terminal' } : { approve: noTerminalApprover(), name: 'none' }
  const permissions = await commandPermissions(parsed.policy, sandbox.rootDir, 'call', asker)
  const opened = commandJournal(parsed, 'call')
  // On a terminal (or with --stream) a command's output shows as it arrives; --json prints one document at the end.
  const live = !parsed.json && (parsed.stream || (io.stdout as { isTTY?: boolean }).isTTY === true) ? new LiveEcho(io.stdout, sandbox.maxOutputBytes) : undefined
  const ctx = createDispatchContext({
    ...(permissions ? { permissions } : {}),
    ...(opened ? { journal: opened.journal } : {}),
    ...(live ? { onToolOutput: live.write } : {}),
  })
  // The key is the call's identity in the journal: the same key (and
  // arguments) again replays the recorded outcome of a side-effect call.
  const key = parsed.idempotencyKey
  const callCtx = key === undefined ? ctx : createCallContext(ctx, { toolCallId: key, idempotencyScope: key })
  const stop = (): void => ctx.abort(new Error('interrupted'))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    const returned = await tool.executor(callCtx)(args)
    if (parsed.json) {
      await writeCallJson(io, name, returned)
      return 0
    }
    // A structured result (a tool with an output schema) is printed as its JSON.
    const result = isStructuredToolResult(returned) ? JSON.stringify(returned) : returned
    if (typeof result !== 'string' && !(result instanceof Uint8Array)) {
      await streamArtifact(result, io)
      return 0
    }
    const rest = live !== undefined && typeof result === 'string' ? live.rest(result) : result
    await writeOut(io.stdout, rest)
    if (typeof result === 'string' && result.length > 0 && !result.endsWith('\n')) await writeOut(io.stdout, '\n')
    return 0
  } catch (error) {
    if (parsed.json) {
      await writeCallFailureJson(io, name, error)
      return 1
    }
    // A failed command's output (test results, compiler errors) is what the
    // user came for: it goes to stdout, the error itself to one stderr line.
    const output = commandOutput(error)
    if (output) {
      const rest = live === undefined ? output : live.rest(output)
      await writeOut(io.stdout, output.endsWith('\n') ? rest : `${rest}\n`)
    }
    await writeOut(io.stderr, `${clip(oneLine(failureLine(error, output !== undefined)), 2_000)}\n`)
    return 1
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
    await opened?.close()
  }
}

// Lines are gathered into writes of about this size.
const STREAM_BATCH_BYTES = 64 * 1024

/**
 * Write an artifact to stdout line by line (each line ended by `\n`), so a
 * result of any size goes out without being loaded whole.
 */
async function streamArtifact(artifact: SpooledArtifactLike, io: CliIo): Promise<void> {
  let batch: string[] = []
  let size = 0
  for await (const line of artifact.scan()) {
    if (io.stdout.destroyed) return // the reader went away (EPIPE): stop reading
    batch.push(line.text, '\n')
    size += line.text.length + 1
    if (size >= STREAM_BATCH_BYTES) {
      await writeOut(io.stdout, batch.join(''))
      batch = []
      size = 0
    }
  }
  if (batch.length > 0) await writeOut(io.stdout, batch.join(''))
}

/** The tool's own error rather than the executor's wrapper. */
function rootError(error: unknown): unknown {
  if (error instanceof E_TOOL_DOWNSTREAM_ERROR && error.cause instanceof Error && 'code' in error.cause) return error.cause
  return error
}

/** `CODE: message`; without the output the message repeats when that went to stdout. */
function failureLine(error: unknown, outputPrinted: boolean): string {
  // The one failure text of every surface, with the output (already on stdout) cut from its middle.
  const { root, context } = toolFailureParts(error)
  const line = root.replace(outputPrinted ? /\s*Output:[\s\S]*$/ : /\s*Output:\s*$/, '')
  return context === undefined ? line : `${line} [${context}]`
}

function commandOutput(error: unknown): string | undefined {
  const output = (rootError(error) as { details?: { output?: unknown } } | null)?.details?.output
  return typeof output === 'string' && output.length > 0 ? output : undefined
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function parseJsonArgs(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new CliUsageError(`JSON arguments do not parse: ${(error as Error).message}`, 'call')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliUsageError('JSON arguments must be an object, e.g. \'{"path":"README.md"}\'', 'call')
  }
  return value
}
