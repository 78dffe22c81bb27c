/**
 * Parsing the `toolsmith` command line with `node:util` `parseArgs`.
 *
 * @module
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { idempotencyKeyProblem } from '../providers/idempotency_key.js'
import type { SandboxOptions } from '../sandbox/sandbox.js'
import { didYouMean } from '../utils/did_you_mean.js'
import { CliUsageError } from './usage.js'

/** The commands, and the options each accepts besides `--help`. */
/** The resource limit flags, accepted wherever a sandbox is made. */
const LIMIT_FLAGS = ['limit-processes', 'limit-memory', 'limit-tmp', 'limit-file-size'] as const

/** Where the tools may read, write and connect: every command that makes the five tools. */
const SANDBOX_FLAGS = ['root', 'allow-network', 'allow-domain', 'no-os-sandbox', 'readable-host', 'readable-path'] as const
/** What bounds one call. */
const CALL_FLAGS = ['max-output-bytes', 'timeout-ms'] as const
/** Who may call, and where calls are recorded: the commands that serve calls. */
const GATE_FLAGS = ['policy', 'journal', 'schema'] as const

const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  mcp: [...SANDBOX_FLAGS, ...CALL_FLAGS, ...GATE_FLAGS, 'http', 'allowed-origin', 'approval-timeout-ms', ...LIMIT_FLAGS],
  call: [...SANDBOX_FLAGS, ...CALL_FLAGS, ...GATE_FLAGS, 'idempotency-key', ...LIMIT_FLAGS, 'json', 'stream'],
  describe: [...SANDBOX_FLAGS, ...CALL_FLAGS, 'provider', ...LIMIT_FLAGS, 'json'],
  demo: ['allow-network', 'no-os-sandbox', ...CALL_FLAGS, 'keep', 'policy', 'json', ...LIMIT_FLAGS],
  doctor: [...SANDBOX_FLAGS, ...LIMIT_FLAGS, 'json'],
  journal: ['postgres', 'schema', 'print-sql', 'jsonl', 'sqlite', 'run', 'json'],
}

const ALL_OPTIONS = {
  root: { type: 'string' },
  'allow-network': { type: 'boolean' },
  'allow-domain': { type: 'string', multiple: true },
  'no-os-sandbox': { type: 'boolean' },
  'readable-host': { type: 'string' },
  'readable-path': { type: 'string', multiple: true },
  'max-output-bytes': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'limit-processes': { type: 'string' },
  'limit-memory': { type: 'string' },
  'limit-tmp': { type: 'string' },
  'limit-file-size': { type: 'string' },
  provider: { type: 'string' },
  policy: { type: 'string' },
  keep: { type: 'boolean' },
  postgres: { type: 'string' },
  schema: { type: 'string' },
  'print-sql': { type: 'boolean' },
  jsonl: { type: 'string' },
  sqlite: { type: 'string' },
  run: { type: 'string' },
  json: { type: 'boolean' },
  stream: { type: 'boolean' },
  journal: { type: 'string' },
  'idempotency-key': { type: 'string' },
  http: { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  'approval-timeout-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

/** A parsed command line. */
export interface ParsedCommandLine {
  /** The command, or `undefined` when none was given. */
  command: string | undefined
  /** Positional arguments after the command. */
  args: string[]
  /** Whether `--help` was given. */
  help: boolean
  /** Whether `--version` was given. */
  version: boolean
  /**
   * The sandbox options from `--root`, `--allow-network`, `--allow-domain`,
   * `--no-os-sandbox`, `--readable-host`, `--readable-path`,
   * `--max-output-bytes`, `--timeout-ms`, and the `--limit-…` flags.
   */
  sandbox: SandboxOptions
  /** `--provider`, for `describe`. */
  provider: string | undefined
  /** `--keep`, for `demo`. */
  keep: boolean
  /** `--policy FILE`, for `call` and `mcp`: a permission policy. */
  policy: string | undefined
  /** `--postgres URL`, for `journal`. */
  postgres: string | undefined
  /** `--schema S`, for `journal`. */
  schema: string | undefined
  /** `--print-sql`, for `journal`. */
  printSql: boolean
  /** `--jsonl FILE`, for `journal audit`. */
  jsonl: string | undefined
  /** `--sqlite FILE`, for `journal audit`. */
  sqlite: string | undefined
  /** `--run ID`, for `journal audit`. */
  run: string | undefined
  /** `--json`, for `journal audit`. */
  json: boolean
  /** `--stream`, for `call`: print a command's output as it arrives, as on a terminal. */
  stream: boolean
  /** `--journal SPEC`, for `call` and `mcp`: where every call is recorded (see `openCommandJournal`). */
  journal: string | undefined
  /** `--idempotency-key KEY`, for `call`: the call's stable identity in the journal. */
  idempotencyKey: string | undefined
  /** `--http [HOST:]PORT`, for `mcp`: serve Streamable HTTP there instead of stdio. */
  http: string | undefined
  /** `--allowed-origin HOST`, for `mcp --http`: browser origins allowed besides localhost. */
  allowedOrigins: string[] | undefined
  /** `--approval-timeout-ms N`, for `mcp`: how long an approval question waits for the client's answer. */
  approvalTimeoutMs: number | undefined
}

/**
 * Parse `argv` (without the node and script paths).
 *
 * @param argv - The arguments.
 * @returns The command, its positionals and options.
 * @throws {@link CliUsageError} for unknown commands or options, and bad values.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof ALL_OPTIONS; allowPositionals: true; strict: true }>>
  try {
    parsed = parseArgs({ args: [...argv], options: ALL_OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new CliUsageError(ambiguousValue(argv, error) ?? unknownOption(argv, error) ?? firstLine((error as Error).message), commandOf(argv))
  }
  const { values, positionals } = parsed
  const [command, ...args] = positionals
  if (command !== undefined && !(command in COMMAND_OPTIONS)) {
    const guess = didYouMean(command, Object.keys(COMMAND_OPTIONS))
    // The form `call` uses for an unknown tool name: one style for every unknown name.
    throw new CliUsageError(`Unknown command "${command}"${guess ? ` — did you mean "${guess}"?` : '; expected mcp, call, describe, demo, doctor or journal'}`)
  }
  if (command !== undefined) {
    const allowed = COMMAND_OPTIONS[command]!
    for (const name of Object.keys(values)) {
      if (name !== 'help' && name !== 'version' && !allowed.includes(name)) {
        throw new CliUsageError(`Option "--${name}" does not apply to "${command}"`, command)
      }
    }
  }
  const sandbox: SandboxOptions = {}
  if (values.root !== undefined) {
    if (values.root === '') throw new CliUsageError('--root needs a directory', command)
    sandbox.rootDir = values.root
  }
  if (values['allow-network']) sandbox.allowNetwork = true
  const domains = values['allow-domain']
  if (domains !== undefined && domains.length > 0) {
    if (values['allow-network']) throw new CliUsageError('--allow-domain and --allow-network exclude each other (--allow-network already allows every host)', command)
    if (values['no-os-sandbox']) throw new CliUsageError('--allow-domain needs the OS sandbox (bubblewrap); it cannot be combined with --no-os-sandbox', command)
    sandbox.allowNetwork = { domains: [...domains] }
  }
  if (values['no-os-sandbox']) sandbox.isolation = { filesystem: false }
  const host = values['readable-host']
  if (host !== undefined) {
    if (host !== 'all' && host !== 'system') throw new CliUsageError(`--readable-host takes all or system, not "${host}"`, command)
    if (host === 'system' && values['no-os-sandbox']) throw new CliUsageError('--readable-host system needs the OS sandbox (bubblewrap); it cannot be combined with --no-os-sandbox', command)
    sandbox.readableHost = host
  }
  const readable = values['readable-path']
  if (readable !== undefined && readable.length > 0) {
    if (host !== 'system') throw new CliUsageError('--readable-path applies only with --readable-host system (otherwise the whole host is readable already)', command)
    sandbox.readablePaths = readable.map((entry) => (entry.startsWith('~/') || entry === '~' ? entry : path.resolve(entry)))
  }
  if (values.policy === '') throw new CliUsageError('--policy needs a policy file', command)
  if (values.journal === '') throw new CliUsageError('--journal needs a journal: FILE.jsonl, FILE.sqlite or a postgres:// URL', command)
  const key = values['idempotency-key']
  if (key !== undefined) {
    if (values.journal === undefined) throw new CliUsageError('--idempotency-key needs --journal: the key names the call in that journal', command)
    const problem = idempotencyKeyProblem(key)
    if (problem !== undefined) throw new CliUsageError(`--idempotency-key ${problem}`, command)
  }
  if (values.http === '') throw new CliUsageError('--http needs [HOST:]PORT, e.g. --http 8080 or --http 127.0.0.1:8080', command)
  if (values['allowed-origin'] !== undefined && values.http === undefined) throw new CliUsageError('--allowed-origin applies only with --http', command)
  if (values['max-output-bytes'] !== undefined) sandbox.maxOutputBytes = positiveInteger('--max-output-bytes', values['max-output-bytes'], command)
  if (values['timeout-ms'] !== undefined) sandbox.timeoutMs = positiveInteger('--timeout-ms', values['timeout-ms'], command)
  const limits: NonNullable<SandboxOptions['limits']> = {}
  if (values['limit-processes'] !== undefined) limits.processes = limitValue('--limit-processes', values['limit-processes'], command, false)
  if (values['limit-memory'] !== undefined) limits.memoryBytes = limitValue('--limit-memory', values['limit-memory'], command, true)
  if (values['limit-tmp'] !== undefined) limits.tmpBytes = limitValue('--limit-tmp', values['limit-tmp'], command, true)
  if (values['limit-file-size'] !== undefined) limits.fileSizeBytes = limitValue('--limit-file-size', values['limit-file-size'], command, true)
  if (Object.keys(limits).length > 0) sandbox.limits = limits
  return {
    command,
    args,
    help: values.help === true,
    version: values.version === true,
    sandbox,
    provider: values.provider,
    keep: values.keep === true,
    policy: values.policy,
    postgres: values.postgres,
    schema: values.schema,
    printSql: values['print-sql'] === true,
    jsonl: values.jsonl,
    sqlite: values.sqlite,
    run: values.run,
    json: values.json === true,
    stream: values.stream === true,
    journal: values.journal,
    idempotencyKey: key,
    http: values.http,
    allowedOrigins: values['allowed-origin'],
    approvalTimeoutMs: values['approval-timeout-ms'] === undefined ? undefined : positiveInteger('--approval-timeout-ms', values['approval-timeout-ms'], command),
  }
}

/**
 * `parseArgs` refuses a value that starts with "-" (`--timeout-ms -5`) as
 * "ambiguous"; say what is wrong with it instead, as for any other bad value.
 */
function ambiguousValue(argv: readonly string[], error: unknown): string | undefined {
  if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return undefined
  const option = /Option '(--[a-z-]+)' argument is ambiguous/.exec((error as Error).message)?.[1]
  if (option === undefined) return undefined
  // parseArgs stops at the first bad value, but a flag may repeat (--allow-domain): find the one followed by a "-" word.
  const at = argv.findIndex((arg, i) => arg === option && argv[i + 1]?.startsWith('-') === true)
  const value = argv[at + 1] ?? ''
  if (option === '--timeout-ms' || option === '--max-output-bytes' || option === '--limit-processes' || option === '--approval-timeout-ms') return `${option} needs a positive integer (got "${value}")`
  // The next word is another option: this one was given no value at all.
  if (isOption(value)) return `${option} needs a value`
  return `${option} needs a value; to give one that starts with "-", write ${option}=${value}`
}

/**
 * `parseArgs` says "Unknown option '--pth'" and how to pass a positional
 * that starts with "-"; say which option was probably meant instead: one of
 * the command's own, else one of another command (named). `call` takes a
 * tool's arguments as JSON, so a flag no option is close to is likely one
 * of them.
 */
function unknownOption(argv: readonly string[], error: unknown): string | undefined {
  if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined
  const option = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1]
  if (option === undefined) return undefined
  const unknown = `Unknown option '${option}'`
  if (!option.startsWith('--')) return unknown
  const typed = option.slice(2)
  const command = commandOf(argv)
  const own = command === undefined ? ['help', 'version'] : [...COMMAND_OPTIONS[command]!, 'help']
  const guess = didYouMean(typed, own)
  if (guess !== undefined) return `${unknown} — did you mean '--${guess}'?`
  const elsewhere = didYouMean(typed, Object.keys(ALL_OPTIONS))
  if (elsewhere !== undefined) {
    const takers = Object.keys(COMMAND_OPTIONS).filter((name) => COMMAND_OPTIONS[name]!.includes(elsewhere))
    return `${unknown} — did you mean '--${elsewhere}'${takers.length > 0 ? ` (an option of ${takers.join(', ')})` : ''}?`
  }
  if (command === 'call') {
    const tool = argv[argv.indexOf('call') + 1]
    const named = tool === undefined || tool.startsWith('-') ? 'TOOL' : tool
    return `${unknown} — a tool's arguments go in its JSON argument, e.g. toolsmith call ${named} '{"${typed}":…}'`
  }
  return unknown
}

/** Whether `word` names one of the options (`--root`, `--root=x`, `-h`, `-v`). */
function isOption(word: string): boolean {
  return word.startsWith('--') ? word.slice(2).split('=')[0]! in ALL_OPTIONS : /^-[hv]$/.test(word)
}

function positiveInteger(option: string, text: string, command: string | undefined): number {
  if (!/^\d+$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) {
    throw new CliUsageError(`${option} needs a positive integer (got "${text}")`, command)
  }
  return Number(text)
}

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }

/**
 * A limit flag's value: `off` (false), or a positive integer; with `size`,
 * also a number with a binary unit (`512M`, `4G`, `4GiB`). The range is the
 * library's to check (its message names the flag).
 */
function limitValue(option: string, text: string, command: string | undefined, size: boolean): number | false {
  if (text === 'off') return false
  const match = size ? /^(\d+)(?:([kmgt])(?:i?b)?)?$/i.exec(text) : /^(\d+)()$/.exec(text)
  const value = match === null ? Number.NaN : Number(match[1]) * UNITS[(match[2] ?? '').toLowerCase()]!
  if (!Number.isSafeInteger(value) || value <= 0) {
    const expected = size ? 'a size (bytes, or a number with K, M, G or T)' : 'a positive integer'
    throw new CliUsageError(`${option} needs ${expected} or "off" (got "${text}")`, command)
  }
  return value
}

function commandOf(argv: readonly string[]): string | undefined {
  const first = argv.find((arg) => !arg.startsWith('-'))
  return first !== undefined && first in COMMAND_OPTIONS ? first : undefined
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim()
}
