/**
 * The five built-in tools, as classes, as a factory sharing one sandbox, and
 * as ready instances rooted at `process.cwd()` (fixed on first use).
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { Sandbox, type SandboxOptions } from '../sandbox/sandbox.js'
import { BashTool } from './bash.js'
import { EditTool } from './edit.js'
import { GrepTool } from './grep.js'
import { ReadTool } from './read.js'
import { WriteTool } from './write.js'

export { ReadTool, type ReadArgs } from './read.js'
export { WriteTool, type WriteArgs, type RedactedWriteArgs } from './write.js'
export { EditTool, type EditArgs, type RedactedEditArgs } from './edit.js'
export { GrepTool, type GrepArgs } from './grep.js'
export { BashTool, type BashArgs } from './bash.js'

/**
 * The five built-in tools, keyed by name, sharing one {@link Sandbox}.
 *
 * @remarks
 * A type alias rather than an interface so that it is assignable to
 * `Record<string, Tool>`: the bundle can be passed wherever a
 * `ToolCollection` is accepted (`toAiSdkTools(tools, ctx)`).
 */
export type BuiltinTools = {
  /** See {@link ReadTool}. */
  readonly read: ReadTool
  /** See {@link WriteTool}. */
  readonly write: WriteTool
  /** See {@link EditTool}. */
  readonly edit: EditTool
  /** See {@link GrepTool}. */
  readonly grep: GrepTool
  /** See {@link BashTool}. */
  readonly bash: BashTool
}

/**
 * Build the five built-in tools over one sandbox.
 *
 * @param options - Sandbox options, or a {@link Sandbox} to share.
 * @returns `{ read, write, edit, grep, bash }`.
 * @throws `E_INVALID_OPTIONS` when the options are invalid;
 *   `E_TOOL_NOT_A_DIRECTORY` when `rootDir` is given and is missing or not a
 *   directory (checked now, not at the first call).
 *
 * @example
 * ```ts
 * import { createTools, createDispatchContext } from 'toolsmith'
 *
 * const { read, bash } = createTools({ rootDir: '/srv/work', timeoutMs: 30_000 })
 * const ctx = createDispatchContext()
 * await bash.executor(ctx)({ cmd: 'ls', args: ['-la'] })
 * ```
 */
export function createTools(options: SandboxOptions | Sandbox = {}): BuiltinTools {
  if (!(options instanceof Sandbox) && Sandbox.isSandbox(options)) {
    // Its state (root, proxy, engine) lives in another copy's private fields.
    throw new E_INVALID_OPTIONS(
      'The Sandbox passed to createTools comes from another copy of toolsmith (two versions are installed): create it with the copy that createTools comes from, or pass its options instead',
    )
  }
  const sandbox = options instanceof Sandbox ? options : new Sandbox(options)
  return Object.freeze({
    read: new ReadTool(sandbox),
    write: new WriteTool(sandbox),
    edit: new EditTool(sandbox),
    grep: new GrepTool(sandbox),
    bash: new BashTool(sandbox),
  })
}

/**
 * The five built-in tools rooted at `process.cwd()` with default limits.
 *
 * @remarks
 * The root is fixed when one of them is first used, not when the package is
 * imported: a program that imports `'toolsmith'` and then `chdir`s gets the
 * directory it moved to. Constructing them does no I/O. Prefer
 * `createTools({ rootDir })`, which says which directory it works on.
 */
export const tools: BuiltinTools = createTools()
/** The ready `read` tool of {@link tools}. */
export const read: ReadTool = tools.read
/** The ready `write` tool of {@link tools}. */
export const write: WriteTool = tools.write
/** The ready `edit` tool of {@link tools}. */
export const edit: EditTool = tools.edit
/** The ready `grep` tool of {@link tools}. */
export const grep: GrepTool = tools.grep
/** The ready `bash` tool of {@link tools}. */
export const bash: BashTool = tools.bash
