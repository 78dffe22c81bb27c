/**
 * The arguments of the five built-in tools, as their handlers receive them
 * after validation, and what events and journals record instead of a
 * `write` or `edit` call's content. Shared by each tool's definition
 * (`read.ts`…) and the half that runs a call (`read_run.ts`…), which is
 * loaded on first use.
 *
 * @module
 */

/** Arguments of `read`. */
export interface ReadArgs {
  /** File path, relative to the sandbox root or absolute inside it. */
  path: string
  /** First line to return, 1-based. Default: 1. */
  offset?: number
  /** How many lines to return. Default: to the end of the file (within `maxOutputBytes`). */
  limit?: number
  /** Prefix each line with its number and a tab, like `cat -n`. Default: false. */
  lineNumbers?: boolean
}

/** Arguments of `write`. */
export interface WriteArgs {
  /** Destination path, relative to the sandbox root or absolute inside it. */
  path: string
  /** The complete new content of the file. */
  content: string
}

/** What events, logs and journals record for a `write` call instead of its content. */
export interface RedactedWriteArgs {
  /** The destination path as given. */
  path: string
  /** UTF-8 size of the content. */
  contentBytes: number
  /** SHA-256 of the content, hex. */
  contentHash: string
}

/** Arguments of `edit`. */
export interface EditArgs {
  /** The file to patch; it must exist. */
  path: string
  /** A unified diff for that one file. */
  patch: string
}

/** What events, logs and journals record for an `edit` call instead of its patch. */
export interface RedactedEditArgs {
  /** The file path as given. */
  path: string
  /** UTF-8 size of the patch. */
  patchBytes: number
  /** SHA-256 of the patch, hex. */
  patchHash: string
}

/** Arguments of `grep`. */
export interface GrepArgs {
  /** A ripgrep (Rust) regular expression; a leading `-` is searched as text. */
  pattern: string
  /**
   * Directory or file to search, relative to the sandbox root.
   *
   * @defaultValue '.'
   */
  path?: string
}

/** Arguments of `bash`. */
export interface BashArgs {
  /** The program: a name looked up in `PATH`, or a path. */
  cmd: string
  /**
   * Its arguments, passed verbatim (no shell parsing).
   *
   * @defaultValue []
   */
  args?: string[]
  /** Options. */
  opts?: {
    /**
     * Working directory, relative to the sandbox root.
     *
     * @defaultValue the root
     */
    cwd?: string
  }
}
