/**
 * `toolsmith call --json`: the call's one JSON document.
 *
 * @module
 */
import type { SpooledArtifactLike } from '../contracts/artifact.js'
import type { ToolResult } from '../contracts/tool_result.js'
import { isStructuredToolResult } from '../contracts/tool_result.js'
import { writeOut, type CliIo } from './io.js'
import { jsonFailure, writeJson, type JsonError } from './json_output.js'

/** `toolsmith call --json`'s document when the call succeeded. */
export interface CallJsonSuccess {
  /** Always `true`. */
  ok: true
  /** The tool called. */
  tool: string
  /** The result: its text, or the object of a tool with an output schema, or base64 with `encoding`. */
  result: unknown
  /** `base64` when the tool returned bytes; absent for text and objects. */
  encoding?: 'base64'
  /** Always 0. */
  exitCode: 0
}

/** `toolsmith call --json`'s document when the call failed (exit code 1). */
export interface CallJsonFailure {
  /** Always `false`. */
  ok: false
  /** The tool called. */
  tool: string
  /** The tool's error: code, message, details (`bash`: `exitCode`, `signal`, `output`). */
  error: JsonError
  /** Always 1. */
  exitCode: 1
}

// An artifact's lines are gathered into writes of about this size.
const BATCH_CHARS = 64 * 1024

/**
 * Print the document of a call that returned `result`. An artifact's text
 * is written line by line into the JSON string, never loaded whole.
 *
 * @param io - The streams.
 * @param tool - The tool's name.
 * @param result - What the call returned.
 */
export async function writeCallJson(io: CliIo, tool: string, result: ToolResult): Promise<void> {
  if (typeof result === 'string' || isStructuredToolResult(result)) {
    await writeJson(io, { ok: true, tool, result, exitCode: 0 } satisfies CallJsonSuccess)
  } else if (result instanceof Uint8Array) {
    const encoded = Buffer.from(result.buffer, result.byteOffset, result.byteLength).toString('base64')
    await writeJson(io, { ok: true, tool, result: encoded, encoding: 'base64', exitCode: 0 } satisfies CallJsonSuccess)
  } else {
    await writeArtifactJson(io, tool, result)
  }
}

/**
 * Print the document of a call that threw `error`.
 *
 * @param io - The streams.
 * @param tool - The tool's name.
 * @param error - What the executor threw.
 */
export async function writeCallFailureJson(io: CliIo, tool: string, error: unknown): Promise<void> {
  await writeJson(io, { ok: false, tool, error: jsonFailure(error, 1).error, exitCode: 1 } satisfies CallJsonFailure)
}

async function writeArtifactJson(io: CliIo, tool: string, artifact: SpooledArtifactLike): Promise<void> {
  // `JSON.stringify` of each piece, quotes cut: the pieces join into one valid JSON string.
  const piece = (text: string): string => JSON.stringify(text).slice(1, -1)
  let batch = `{"ok":true,"tool":${JSON.stringify(tool)},"result":"`
  for await (const line of artifact.scan()) {
    if (io.stdout.destroyed) return // the reader went away (EPIPE): stop reading
    batch += piece(`${line.text}\n`)
    if (batch.length >= BATCH_CHARS) {
      await writeOut(io.stdout, batch)
      batch = ''
    }
  }
  await writeOut(io.stdout, `${batch}","exitCode":0}\n`)
}
