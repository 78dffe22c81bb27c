/**
 * `bash`: run one program inside the sandbox, without a shell.
 *
 * @module
 */
import { Tool, kitDefinition } from '../core/tool.js'
import { BUILTIN_INPUT_JSON_SCHEMAS } from './builtin_json_schemas.js'
import { validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { onFirstUse } from '../utils/first_use.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { BashArgs } from './builtin_args.js'

export type { BashArgs } from './builtin_args.js'

/** Longest `cmd`, and longest single argument, in characters. */
export const MAX_COMMAND_CHARS = 8192
/** Most arguments one call may pass. */
export const MAX_COMMAND_ARGS = 128

const noNul = /^[^\0]*$/

const bashSchema: ObjectSchema<BashArgs> = lazyObject(() => validator.object<BashArgs>({
  cmd: validator
    .string()
    .min(1)
    .max(MAX_COMMAND_CHARS)
    .pattern(noNul, 'no NUL bytes')
    .required()
    .description('Executable to run (name on PATH, or a path). No shell: for pipes or redirects use cmd "sh" with args ["-c", "…"]'),
  args: validator
    .array()
    .items(validator.string().allow('').max(MAX_COMMAND_CHARS).pattern(noNul, 'no NUL bytes'))
    .max(MAX_COMMAND_ARGS)
    .default([])
    .description('Arguments, passed to the program verbatim'),
  opts: validator
    .object({
      cwd: validator.string().allow('').description('Working directory, relative to the sandbox root (default: the root)'),
    })
    .default({})
    .description('Options'),
}))

/**
 * The built-in `bash` tool: runs a program and returns its combined stdout
 * and stderr.
 *
 * @remarks
 * `cmd` is executed directly (no shell), with `args` verbatim, stdin closed,
 * the working directory checked against the root (`TOOL_FILE_NOT_FOUND` when
 * missing), and a scrubbed environment (allow-listed host variables plus
 * `Sandbox.env`). Output is streamed into a bounded buffer: over
 * `maxOutputBytes` the head and tail are kept around a `[… N bytes
 * truncated …]` marker. A non-zero exit is `TOOL_COMMAND_FAILED` with
 * `{ exitCode, signal, output }`; after `timeoutMs` the whole process tree is
 * SIGKILLed and `TOOL_TIMEOUT` carries the partial output; aborting the
 * context does the same with `TOOL_ABORTED`; an unknown program is
 * `TOOL_COMMAND_NOT_FOUND`. On Linux with bubblewrap the program runs in
 * the OS sandbox: the host read-only, the root (and `writablePaths`, and a
 * private `/tmp`) writable, credentials masked, the protected paths
 * present (`readOnlyPaths`: every `.git`, shell startup files, editor and
 * agent settings…) read-only, host Unix sockets unreachable, its own PID
 * namespace and — with `allowNetwork: false` — an empty network namespace.
 * Where that sandbox cannot run, every call is `TOOL_SANDBOX_UNAVAILABLE`
 * unless the sandbox opted out (`isolation: { filesystem: false }`). The
 * word guard (`TOOL_NETWORK_DISABLED`, `TOOL_GIT_REMOTE_DISABLED`) runs only
 * where no network namespace is made, or with `networkGuard: 'always'`.
 * `Sandbox.isolation` reports what is enforced. Protected paths a command
 * creates are named in a note under its output, in a failed command's
 * `details.protectedPathsCreated`, and in a `protectedPathCreated` event.
 * A context with `onToolOutput` also hears the output as it arrives, each
 * chunk tagged with its stream; the result is the same either way.
 * `sideEffect: true`, `idempotent: false`.
 */
export class BashTool extends Tool<any, BashArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super(kitDefinition({
      name: 'bash',
      description:
        'Run one program inside the sandbox and return its combined stdout and stderr. There is NO shell: `cmd` is the program and `args` its arguments; ' +
        'for pipes, redirects or globbing use { "cmd": "sh", "args": ["-c", "…"] }. `opts.cwd` is relative to the sandbox root. ' +
        `Non-zero exits are errors carrying the output; commands are killed after ${sandbox.timeoutMs} ms.` +
        networkSentence(sandbox),
      inputSchema: bashSchema,
      sideEffect: true,
      idempotent: false,
      roles: { command: 'cmd', commandArgs: 'args', workingDirectory: 'opts.cwd' },
      // All four parameters are declared on purpose: see Tool's idempotency-key warning.
      handler: async (args, ctx, _meta, call) => (await loadBashRun()).bashHandler(sandbox, args, call, ctx),
    }, { inputJsonSchema: BUILTIN_INPUT_JSON_SCHEMAS.bash }))
  }
}

function networkSentence(sandbox: Sandbox): string {
  const domains = sandbox.allowedDomains
  if (domains === undefined) return sandbox.allowNetwork === true ? '' : ' Network access is disabled.'
  const listed = domains.length === 0 ? 'no host' : domains.join(', ')
  return (
    ` Network access goes through a proxy (HTTP_PROXY/HTTPS_PROXY are set) that allows only: ${listed}; ` +
    'other hosts answer 403 naming the host, so you can ask the user to allow it.'
  )
}

/**
 * The running half of `bash` (the sandbox's process, OS and network layers
 * behind it), loaded by the first call: `import 'toolsmith'` then compiles
 * none of it.
 */
const loadBashRun = onFirstUse(() => import('./bash_run.js'))
