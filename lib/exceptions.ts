/**
 * Every exception toolsmith throws: a {@link BaseException} subclass with a
 * static `code`, `status` and default `message`, so callers branch on
 * `error.code` and never on message text.
 *
 * @module
 */
import { BaseException } from './exception_base.js'

export {
  BaseException,
  createException,
  describeCause,
  errorSummary,
  toolFailureParts,
  toolFailureText,
  type ExceptionClass,
  type ExceptionOptions,
  type ToolFailureParts,
} from './exception_base.js'

// ---------------------------------------------------------------------------
// Core
// ---------------------------------------------------------------------------

/** A `Tool` was constructed from a `RawTool` that does not satisfy `Tool.schema`. */
export class E_INVALID_INITIAL_TOOL_VALUE extends BaseException {
  static override code = 'E_INVALID_INITIAL_TOOL_VALUE'
  static override status = 500
  static override message = 'Invalid initial tool value'
}

/** A tool was called with arguments its input schema rejects. */
export class E_INVALID_TOOL_ARGS extends BaseException {
  static override code = 'E_INVALID_TOOL_ARGS'
  static override status = 422
  static override message = 'Invalid tool arguments'
}

/**
 * A tool with an output schema returned a result the schema rejects (or one
 * that is not a plain object); `details.issues` names each failing path.
 */
export class E_INVALID_TOOL_OUTPUT extends BaseException {
  static override code = 'E_INVALID_TOOL_OUTPUT'
  static override status = 500
  static override message = 'Invalid tool output'
}

/** A tool's handler failed; `cause` is exactly what the handler threw. */
export class E_TOOL_DOWNSTREAM_ERROR extends BaseException {
  static override code = 'E_TOOL_DOWNSTREAM_ERROR'
  static override status = 502
  static override message = 'Tool handler failed'
}

/** A tool name is already taken in a `ToolRegistry`. */
export class E_TOOL_ALREADY_REGISTERED extends BaseException {
  static override code = 'E_TOOL_ALREADY_REGISTERED'
  static override status = 409
  static override message = 'Tool already registered'
}

/** A name was looked up in a `ToolRegistry` that holds no such tool. */
export class E_TOOL_NOT_REGISTERED extends BaseException {
  static override code = 'E_TOOL_NOT_REGISTERED'
  static override status = 404
  static override message = 'Tool not registered'
}

/** Something that is not a `SpoolReader` was given where one is required. */
export class E_NOT_A_SPOOL_READER extends BaseException {
  static override code = 'E_NOT_A_SPOOL_READER'
  static override status = 500
  static override message = 'Not a spool reader'
}

/** A `Registry` was constructed from a value that is not a plain object. */
export class E_INVALID_INITIAL_REGISTRY_VALUE extends BaseException {
  static override code = 'E_INVALID_INITIAL_REGISTRY_VALUE'
  static override status = 500
  static override message = 'Invalid initial registry value'
}

/** A `ToolCall` was constructed from an invalid raw value. */
export class E_INVALID_INITIAL_TOOL_CALL_VALUE extends BaseException {
  static override code = 'E_INVALID_INITIAL_TOOL_CALL_VALUE'
  static override status = 500
  static override message = 'Invalid initial tool call value'
}

/** A value cannot be turned into canonical JSON (NaN, ±Infinity, a cycle…). */
export class E_NOT_CANONICALIZABLE extends BaseException {
  static override code = 'E_NOT_CANONICALIZABLE'
  static override status = 400
  static override message = 'Value cannot be canonicalised'
}

/** Options given to a toolsmith constructor (Sandbox, runner, store…) are invalid. */
export class E_INVALID_OPTIONS extends BaseException {
  static override code = 'E_INVALID_OPTIONS'
  static override status = 500
  static override message = 'Invalid options'
}

// ---------------------------------------------------------------------------
// Built-in tools: code TOOL_*, status chosen as the nearest HTTP meaning.
// ---------------------------------------------------------------------------

/** A path resolves outside the sandbox root (by `..`, absolute path, symlink or hard link). */
export class E_TOOL_PATH_ESCAPE extends BaseException {
  static override code = 'TOOL_PATH_ESCAPE'
  static override status = 403
  static override message = 'Path escapes the sandbox root'
}

/** A path is empty, contains a NUL byte or is too long. */
export class E_TOOL_PATH_INVALID extends BaseException {
  static override code = 'TOOL_PATH_INVALID'
  static override status = 400
  static override message = 'Invalid path'
}

/** A path that must exist does not. */
export class E_TOOL_FILE_NOT_FOUND extends BaseException {
  static override code = 'TOOL_FILE_NOT_FOUND'
  static override status = 404
  static override message = 'File not found'
}

/** A file is larger than `maxOutputBytes`. */
export class E_TOOL_FILE_TOO_LARGE extends BaseException {
  static override code = 'TOOL_FILE_TOO_LARGE'
  static override status = 413
  static override message = 'File too large'
}

/** A path names a directory, FIFO, socket or device where a regular file is required. */
export class E_TOOL_NOT_A_FILE extends BaseException {
  static override code = 'TOOL_NOT_A_FILE'
  static override status = 400
  static override message = 'Not a regular file'
}

/** A file looks binary (a NUL byte in its first 8 KiB). */
export class E_TOOL_BINARY_FILE extends BaseException {
  static override code = 'TOOL_BINARY_FILE'
  static override status = 415
  static override message = 'Binary file'
}

/** Content to write is larger than `maxOutputBytes`. */
export class E_TOOL_CONTENT_TOO_LARGE extends BaseException {
  static override code = 'TOOL_CONTENT_TOO_LARGE'
  static override status = 413
  static override message = 'Content too large'
}

/** A patch is larger than `maxOutputBytes`. */
export class E_TOOL_PATCH_TOO_LARGE extends BaseException {
  static override code = 'TOOL_PATCH_TOO_LARGE'
  static override status = 413
  static override message = 'Patch too large'
}

/** A patch is empty, malformed, multi-file, or a hunk does not match. */
export class E_TOOL_PATCH_FAILED extends BaseException {
  static override code = 'TOOL_PATCH_FAILED'
  static override status = 409
  static override message = 'Failed to apply patch'
}

/** ripgrep exited with an error (bad regex, unreadable path…). */
export class E_TOOL_GREP_FAILED extends BaseException {
  static override code = 'TOOL_GREP_FAILED'
  static override status = 400
  static override message = 'grep failed'
}

/** A command exited non-zero or was killed by a signal. */
export class E_TOOL_COMMAND_FAILED extends BaseException {
  static override code = 'TOOL_COMMAND_FAILED'
  static override status = 500
  static override message = 'Command failed'
}

/** The executable given to `bash` does not exist or is not executable. */
export class E_TOOL_COMMAND_NOT_FOUND extends BaseException {
  static override code = 'TOOL_COMMAND_NOT_FOUND'
  static override status = 404
  static override message = 'Command not found'
}

/** A process ran past its timeout and was killed with its whole process group. */
export class E_TOOL_TIMEOUT extends BaseException {
  static override code = 'TOOL_TIMEOUT'
  static override status = 504
  static override message = 'Timed out'
}

/** The call was cancelled through its abort signal. */
export class E_TOOL_ABORTED extends BaseException {
  static override code = 'TOOL_ABORTED'
  static override status = 499
  static override message = 'Aborted'
}

/** A command would reach the network while `allowNetwork` is false. */
export class E_TOOL_NETWORK_DISABLED extends BaseException {
  static override code = 'TOOL_NETWORK_DISABLED'
  static override status = 403
  static override message = 'Network access is disabled'
}

/** A git subcommand that talks to a remote was refused while `allowNetwork` is false. */
export class E_TOOL_GIT_REMOTE_DISABLED extends BaseException {
  static override code = 'TOOL_GIT_REMOTE_DISABLED'
  static override status = 403
  static override message = 'Git remote operations are disabled'
}

/**
 * A permission policy refused the call (a `deny` rule, or an `ask` nobody
 * approved). Nothing ran. `details` name the rule (`rule: { index, name }`,
 * `null` for the policy's default), its `reason`, the `approver` and any `note`.
 */
export class E_TOOL_DENIED extends BaseException {
  static override code = 'TOOL_DENIED'
  static override status = 403
  static override message = 'The permission policy denied this call'
}

/** A permission policy (rules as data or a policy file) is malformed; the message names the first bad rule by index. */
export class E_INVALID_POLICY extends BaseException {
  static override code = 'E_INVALID_POLICY'
  static override status = 422
  static override message = 'Invalid permission policy'
}

/**
 * `bash` would have to run a command without the OS sandbox it was asked to
 * use (bubblewrap missing, not Linux, or user namespaces disabled). Nothing
 * ran. Install bubblewrap, or opt out explicitly with
 * `isolation: { filesystem: false }`.
 */
export class E_TOOL_SANDBOX_UNAVAILABLE extends BaseException {
  static override code = 'TOOL_SANDBOX_UNAVAILABLE'
  static override status = 503
  static override message = 'The OS sandbox is unavailable on this machine'
}

/**
 * A file tool was asked to create, change or read a protected path: a file
 * that runs code on the host later (`.git/config`, `.git/hooks/…`, shell rc
 * files, editor task files…) or a credential the sandbox hides. Nothing was
 * touched. `details.path` names it and `details.reason` says which rule
 * matched (`'executes-on-host'` or `'credentials'`).
 */
export class E_TOOL_PATH_PROTECTED extends BaseException {
  static override code = 'TOOL_PATH_PROTECTED'
  static override status = 403
  static override message = 'The path is protected'
}

/**
 * A `bash` command hit one of the sandbox's resource limits (processes,
 * memory, file size, the private `/tmp`) and was stopped or failed because
 * of it. `details.limit` names the limit, `details.value` its setting, and
 * `exitCode`, `signal` and `output` are there as for a failed command.
 */
export class E_TOOL_LIMIT_EXCEEDED extends BaseException {
  static override code = 'TOOL_LIMIT_EXCEEDED'
  static override status = 507
  static override message = 'The command exceeded a resource limit of the sandbox'
}

/** The sandbox root (`rootDir`) is missing or is not a directory: nothing can run there. */
export class E_TOOL_NOT_A_DIRECTORY extends BaseException {
  static override code = 'TOOL_NOT_A_DIRECTORY'
  static override status = 400
  static override message = 'Not a directory'
}

/** The file system refused an operation inside the sandbox (permission denied, disk full, read-only, I/O error…). */
export class E_TOOL_IO_ERROR extends BaseException {
  static override code = 'TOOL_IO_ERROR'
  static override status = 500
  static override message = 'File system error'
}

// ---------------------------------------------------------------------------
// Runner and journal
/** An optional peer dependency (such as `better-sqlite3`) is needed but not installed. */
export class E_OPTIONAL_DEPENDENCY_MISSING extends BaseException {
  static override code = 'E_OPTIONAL_DEPENDENCY_MISSING'
  static override status = 500
  static override message = 'An optional dependency is not installed'
}

/** A `TurnRunner.run` was cancelled through its signal; the turn stopped at once. */
export class E_TURN_ABORTED extends BaseException {
  static override code = 'E_TURN_ABORTED'
  static override status = 499
  static override message = 'The turn was aborted'
}

/** A provider adapter was given something that is neither a `Tool` nor a `tool.describe()` snapshot. */
export class E_NOT_A_TOOL extends BaseException {
  static override code = 'E_NOT_A_TOOL'
  static override status = 500
  static override message = 'Not a tool or a tool description'
}

/** A query on an artifact cannot be answered: a JSON path or Markdown heading that does not exist, text that is not JSON. */
export class E_ARTIFACT_QUERY_FAILED extends BaseException {
  static override code = 'E_ARTIFACT_QUERY_FAILED'
  static override status = 422
  static override message = 'Artifact query failed'
}

/**
 * A tool's input schema has no faithful form for one provider (a root
 * `.when()` whose branches differ, an OpenAI strict-mode limit…). Raised
 * when the definition is built, never left for the provider to refuse at
 * request time; `details` names the tool, the provider, the field and the rule.
 */
export class E_PROVIDER_SCHEMA_UNSUPPORTED extends BaseException {
  static override code = 'E_PROVIDER_SCHEMA_UNSUPPORTED'
  static override status = 422
  static override message = 'The tool schema cannot be expressed for this provider'
}

/**
 * A non-idempotent side-effect call was claimed in the journal by an earlier
 * attempt or another worker that never recorded how it ended (it crashed, was
 * killed, or lost the database mid-call). The handler was not run again: the
 * effect may or may not have happened. `details` says what the call was.
 */
export class E_TOOL_OUTCOME_UNKNOWN extends BaseException {
  static override code = 'TOOL_OUTCOME_UNKNOWN'
  static override status = 409
  static override message = 'The outcome of an earlier run of this call is unknown'
}

/**
 * The journal's database cannot be reached or refused a write (server down,
 * connection lost, bad URL, wrong credentials). A call whose exactly-once
 * guarantee depends on the journal was not started, or its outcome could not
 * be recorded; the turn stops and can be resumed once the database is back.
 */
export class E_JOURNAL_UNAVAILABLE extends BaseException {
  static override code = 'E_JOURNAL_UNAVAILABLE'
  static override status = 503
  static override message = 'The journal database is unavailable'
}

/**
 * The journal holds a turn checkpoint that cannot be read back: a link of
 * its chain is missing (an earlier checkpoint was removed or never fully
 * written and a later one refers to it), or sealed tool-call arguments do
 * not open with the key they name (changed or damaged). Nothing was run;
 * `details` names the run and what is wrong.
 */
export class E_JOURNAL_CORRUPT extends BaseException {
  static override code = 'E_JOURNAL_CORRUPT'
  static override status = 500
  static override message = 'The journal holds a checkpoint that cannot be read back'
}
