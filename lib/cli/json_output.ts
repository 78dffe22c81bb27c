/**
 * `--json` of `call`, `describe` and `doctor`: one JSON document on stdout,
 * `{ "ok": true, … }` or `{ "ok": false, "error": { code, message }, … }`,
 * with `exitCode` the process's own exit code. (`demo` and `journal` print
 * documents of their own shape; their errors stay text on stderr.)
 *
 * @module
 */
import { E_TOOL_DOWNSTREAM_ERROR } from '../exceptions.js'
import { writeOut, type CliIo } from './io.js'
import { CliUsageError } from './usage.js'

/** The code of a usage error (exit code 2) in a `--json` document. */
export const CLI_USAGE_CODE = 'E_CLI_USAGE'

/** The `error` member of a failed command's `--json` document. */
export interface JsonError {
  /** What a program switches on: the tool's code (`TOOL_FILE_NOT_FOUND`…), or `E_CLI_USAGE`. */
  code: string
  /** What went wrong, for a person or a model; a command's output is in `details.output`, not here. */
  message: string
  /** The name most likely meant, when a tool or provider name was mistyped. */
  suggestion?: string
  /** The error's structured facts (`bash`: `exitCode`, `signal`, `output`), when it has any. */
  details?: unknown
}

/** A failed command's `--json` document. */
export interface JsonFailure {
  /** Always `false`. */
  ok: false
  /** The error. */
  error: JsonError
  /** The process's exit code: 1 (the call or check failed) or 2 (usage). */
  exitCode: number
}

/** The commands whose `--json` mode this module answers for, usage errors included. */
const JSON_COMMANDS: readonly string[] = ['call', 'describe', 'doctor']

/**
 * Whether `argv` asks for `--json` from a command whose errors are JSON too
 * (checked on the raw words: a usage error can come before any parse).
 *
 * @param argv - The program's arguments.
 * @returns Whether a usage error must be printed as a {@link JsonFailure}.
 */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  const words = end === -1 ? argv : argv.slice(0, end)
  const command = words.find((word) => !word.startsWith('-'))
  return command !== undefined && JSON_COMMANDS.includes(command) && words.includes('--json')
}

/**
 * Print one JSON document (one line) on stdout.
 *
 * @param io - The streams.
 * @param document - The document.
 */
export async function writeJson(io: CliIo, document: unknown): Promise<void> {
  await writeOut(io.stdout, `${JSON.stringify(document)}\n`)
}

/**
 * The `--json` document of an error: a usage error's (exit code 2) or a
 * tool's (the innermost cause of the executor's wrapper leads, as in the
 * text line).
 *
 * @param error - What the command threw.
 * @param exitCode - The exit code the command returns.
 * @returns The document.
 */
export function jsonFailure(error: unknown, exitCode: number): JsonFailure {
  if (error instanceof CliUsageError) {
    const suggestion = (error as { suggestion?: unknown }).suggestion
    return {
      ok: false,
      error: { code: CLI_USAGE_CODE, message: error.message, ...(typeof suggestion === 'string' ? { suggestion } : {}) },
      exitCode: error.exitCode,
    }
  }
  return { ok: false, error: jsonError(innermost(error)), exitCode }
}

/** The executor wraps what a handler threw; the handler's own error is the one to act on. */
function innermost(error: unknown): unknown {
  let current = error
  while (current instanceof E_TOOL_DOWNSTREAM_ERROR && current.cause !== undefined) current = current.cause
  return current
}

function jsonError(error: unknown): JsonError {
  const { code, message, details } = (error !== null && typeof error === 'object' ? error : {}) as {
    code?: unknown
    message?: unknown
    details?: unknown
  }
  const text = typeof message === 'string' ? message : String(error)
  const output = (details as { output?: unknown } | undefined)?.output
  return {
    code: typeof code === 'string' && code !== '' ? code : 'E_RUNTIME_EXCEPTION',
    message: withoutOutput(text, output),
    ...(details === undefined ? {} : { details }),
  }
}

/** A command's error message ends with its output (`… Output:\n…`): that is in `details.output` already. */
function withoutOutput(message: string, output: unknown): string {
  if (typeof output !== 'string' || !message.endsWith(output)) return message
  return message.slice(0, message.length - output.length).replace(/\s*Output( so far)?:\s*$/, '')
}

/**
 * Print a failure's document.
 *
 * @param io - The streams.
 * @param failure - From {@link jsonFailure}.
 * @returns Its exit code, for the caller to return.
 */
export async function writeJsonFailure(io: CliIo, failure: JsonFailure): Promise<number> {
  await writeJson(io, failure)
  return failure.exitCode
}
