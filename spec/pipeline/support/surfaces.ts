// The four surfaces a tool call can come through, each driven the way its
// users drive it: `toolsmith call` as a real process, `createMcpServer` with
// the official MCP client, `toAiSdkTools` under the real `ai` package's
// generateText (a mock *model*, the one allowed mock) and `TurnRunner` with a
// scripted model. Each gets the same journal file, the same policy and the
// same tool, so one parametrised spec can hold them all to the same promises.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import {
  MCP_IDEMPOTENCY_KEY_META,
  Permissions,
  SqliteJournal,
  TurnRunner,
  createDispatchContext,
  createMcpServer,
  createTools,
  scriptedModel,
  toAiSdkTools,
} from '../../../lib/index.js'
import { runCli } from '../../cli/support/run_cli.js'
import { readSpanFile, spanFileEnv, traceInProcess, type Tracing } from './tracing.js'

/** The file the tool appends to: one `ran` line per run of the handler. */
export const LOG_FILE = 'log.txt'

/**
 * The call every surface makes: `edit` (a built-in: `sideEffect: true`,
 * `idempotent: false`, with a `redact` that records `{ path, patchBytes,
 * patchHash }` instead of the patch) appending a line after `log`. Applied
 * twice it appends twice, so the number of `ran` lines on disk counts the
 * handler's runs. The built-in rather than a custom tool because
 * `toolsmith call` and `toolsmith mcp` serve only the built-ins.
 */
export const APPEND = { path: LOG_FILE, patch: '@@ -1 +1,2 @@\n log\n+ran\n' }

/** The same edit on a file the policy refuses. */
export const DENIED = { path: 'secret.txt', patch: '@@ -1 +1,2 @@\n secret\n+ran\n' }

/** The policy every surface is given (the CLI reads it from a file). */
export const POLICY = {
  default: 'deny',
  rules: [
    { name: 'append to the log', tool: 'edit', match: { paths: [LOG_FILE] }, decision: 'allow' },
    { name: 'secrets stay put', tool: 'edit', match: { paths: ['secret.txt'] }, decision: 'deny', reason: 'the secret is not to be edited' },
  ],
} as const

/** The project a surface works in. */
export interface SurfaceEnv {
  /** Sandbox root, holding `log.txt` (`log\n`) and `secret.txt` (`secret\n`). */
  root: string
  /** The SQLite journal every call is recorded in. */
  journalFile: string
  /** {@link POLICY} as JSON. */
  policyFile: string
}

/** One tool event as a surface reports it, reduced to what every surface has. */
export interface SeenEvent {
  type: 'start' | 'end'
  toolName: string
  /** The kit's callId, when the event carries it (the runner's `tool-start` carries the provider's id only). */
  callId?: string
  replayed?: boolean
}

/** What the caller got back. */
export interface Answer {
  /** Whether the surface reported success. */
  ok: boolean
  /** The result text, or the failure text. */
  text: string
}

/** A surface ready for calls. */
export interface Surface {
  /**
   * Make one `edit` call. `key` is the surface's stable identity for the
   * call (CLI `--idempotency-key`, MCP `_meta` key, AI SDK `toolCallId`, the
   * runner's run identity); `undefined` makes a call without one, where the
   * surface can.
   */
  call(args: object, key: string | undefined): Promise<Answer>
  /**
   * The tool events the surface showed, in order; `undefined` for a surface
   * whose events cannot be observed from outside (a `toolsmith call` process:
   * its journal row is its record).
   */
  readonly events: SeenEvent[] | undefined
  /** Whether `call(args, undefined)` is possible (the runner always has an identity). */
  readonly keyless: boolean
  /**
   * The provider's id of each call made so far, in order: what the surface
   * passes as the call's `toolCallId` (the CLI's `--idempotency-key`, the MCP
   * request id, the AI SDK `toolCallId`, the runner's model call id).
   */
  readonly providerIds: (string | undefined)[]
  /**
   * Record the spans of the calls made from now on, with the real
   * OpenTelemetry SDK: in this process, or in each `toolsmith call` process
   * through a preload. `stop()` must be called (it unregisters the SDK).
   */
  trace(): Tracing
  close(): Promise<void>
}

/** A named way to open a surface. */
export interface SurfaceCase {
  name: string
  open(env: SurfaceEnv): Promise<Surface>
}

/** Write the project files of a surface spec into `root`. */
export function writeProject(root: string): SurfaceEnv {
  writeFileSync(join(root, LOG_FILE), 'log\n')
  writeFileSync(join(root, 'secret.txt'), 'secret\n')
  const policyFile = join(root, '..', `${root.split('/').pop()}-policy.json`)
  writeFileSync(policyFile, JSON.stringify(POLICY))
  return { root, journalFile: join(root, '..', `${root.split('/').pop()}-journal.sqlite`), policyFile }
}

/** How many times the handler appended. */
export function handlerRuns(env: SurfaceEnv): number {
  return readFileSync(join(env.root, LOG_FILE), 'utf8').split('\n').filter((line) => line === 'ran').length
}

async function permissionsOf(env: SurfaceEnv): Promise<Permissions> {
  return new Permissions({ policy: POLICY as never, root: env.root })
}

const cli: SurfaceCase = {
  name: 'toolsmith call (a real process)',
  async open(env) {
    const providerIds: (string | undefined)[] = []
    // Set while traced: each process appends its spans to this file.
    let spansFile: string | undefined
    return {
      events: undefined,
      keyless: true,
      providerIds,
      trace() {
        const file = `${env.journalFile}.spans.jsonl`
        spansFile = file
        return {
          spans: () => readSpanFile(file),
          async stop() {
            spansFile = undefined
          },
        }
      },
      async call(args, key) {
        providerIds.push(key)
        const run = await runCli([
          'call',
          'edit',
          JSON.stringify(args),
          '--root',
          env.root,
          '--policy',
          env.policyFile,
          '--journal',
          env.journalFile,
          ...(key === undefined ? [] : ['--idempotency-key', key]),
        ], spansFile === undefined ? {} : { env: spanFileEnv(spansFile) })
        if (run.code !== 0 && run.code !== 1) throw new Error(`toolsmith call exited ${run.code}: ${run.stderr}`)
        return { ok: run.code === 0, text: (run.code === 0 ? run.stdout : run.stderr).trim() }
      },
      async close() {},
    }
  },
}

const mcp: SurfaceCase = {
  name: 'createMcpServer (the official MCP client)',
  async open(env) {
    const journal = new SqliteJournal(env.journalFile)
    const events: SeenEvent[] = []
    const context = createDispatchContext({ journal })
    context.on('toolExecutionStart', (e) => events.push({ type: 'start', toolName: e.toolName, callId: e.callId }))
    context.on('toolExecutionEnd', (e) => events.push({ type: 'end', toolName: e.toolName, callId: e.callId, ...replayedOf(e) }))
    const server = createMcpServer(Object.values(createTools({ rootDir: env.root })), {
      name: 'spec',
      version: '1.0.0',
      context,
      journal,
      permissions: await permissionsOf(env),
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    // The JSON-RPC id of each tools/call request, as the client sends it: the server's toolCallId.
    const providerIds: (string | undefined)[] = []
    const send = clientSide.send.bind(clientSide)
    clientSide.send = (message, options) => {
      if ('method' in message && message.method === 'tools/call' && 'id' in message) providerIds.push(String(message.id))
      return send(message, options)
    }
    const client = new Client({ name: 'surfaces-spec', version: '1.0.0' })
    await Promise.all([server.connect(serverSide), client.connect(clientSide)])
    return {
      events,
      keyless: true,
      providerIds,
      trace: traceInProcess,
      async call(args, key) {
        const result = (await client.callTool({
          name: 'edit',
          arguments: args as Record<string, unknown>,
          ...(key === undefined ? {} : { _meta: { [MCP_IDEMPOTENCY_KEY_META]: key } }),
        })) as { isError?: boolean; content: { text?: string }[] }
        return { ok: result.isError !== true, text: result.content.map((c) => c.text ?? '').join('') }
      },
      async close() {
        await client.close()
        await server.close()
        journal.close()
      },
    }
  },
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** The AI SDK's mock model: one step calling `edit` with `toolCallId`, then text. */
function aiSdkModel(toolCallId: string, args: object): MockLanguageModelV3 {
  const steps: LanguageModelV3GenerateResult[] = [
    {
      content: [{ type: 'tool-call', toolCallId, toolName: 'edit', input: JSON.stringify(args) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    },
    { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
  ]
  let step = 0
  return new MockLanguageModelV3({ doGenerate: async () => steps[step++]! })
}

const aiSdk: SurfaceCase = {
  name: 'toAiSdkTools (generateText, the SDK mock model)',
  async open(env) {
    const journal = new SqliteJournal(env.journalFile)
    const events: SeenEvent[] = []
    // A workflow step's scope: a replay of the step reuses the model's toolCallIds under it.
    const ctx = createDispatchContext({ journal, permissions: await permissionsOf(env), idempotencyScope: 'workflow-step-1' })
    ctx.on('toolExecutionStart', (e) => events.push({ type: 'start', toolName: e.toolName, callId: e.callId }))
    ctx.on('toolExecutionEnd', (e) => events.push({ type: 'end', toolName: e.toolName, callId: e.callId, ...replayedOf(e) }))
    const tools = toAiSdkTools(Object.values(createTools({ rootDir: env.root })), ctx)
    let fresh = 0
    const providerIds: (string | undefined)[] = []
    return {
      events,
      // The SDK always gives a toolCallId: a fresh one is a call without a stable identity across steps.
      keyless: true,
      providerIds,
      trace: traceInProcess,
      async call(args, key) {
        const toolCallId = key ?? `fresh-${++fresh}`
        providerIds.push(toolCallId)
        const result = await generateText({ model: aiSdkModel(toolCallId, args), tools, prompt: 'append', stopWhen: stepCountIs(3) })
        const part = result.steps[0]!.content.find((c) => c.type === 'tool-result' || c.type === 'tool-error')!
        return part.type === 'tool-result' ? { ok: true, text: String(part.output) } : { ok: false, text: String((part.error as Error).message ?? part.error) }
      },
      async close() {
        journal.close()
      },
    }
  },
}

/** The id the scripted model gives its `edit` call. */
const RUNNER_CALL_ID = 'c1'

const runner: SurfaceCase = {
  name: 'TurnRunner (scriptedModel)',
  async open(env) {
    const journal = new SqliteJournal(env.journalFile)
    const events: SeenEvent[] = []
    const permissions = await permissionsOf(env)
    const tools = Object.values(createTools({ rootDir: env.root }))
    const attempts = new Map<string, number>()
    const providerIds: (string | undefined)[] = []
    return {
      events,
      keyless: false,
      providerIds,
      trace: traceInProcess,
      async call(args, key) {
        providerIds.push(RUNNER_CALL_ID)
        // The runner's stable identity is its run, node and iteration: a repeat is the next attempt of the same iteration.
        const runId = key ?? 'run-without-key'
        const attempt = (attempts.get(runId) ?? 0) + 1
        attempts.set(runId, attempt)
        const result = await new TurnRunner({
          model: scriptedModel([{ toolCalls: [{ id: RUNNER_CALL_ID, name: 'edit', args }] }, { text: 'done' }]),
          tools,
          journal,
          permissions,
          identity: { runId, nodeId: 'append', iteration: 0, attempt },
          onEvent: (e) => {
            if (e.type === 'tool-start') events.push({ type: 'start', toolName: e.toolName })
            if (e.type === 'tool-end') events.push({ type: 'end', toolName: e.toolName, callId: e.callId, ...(e.replayed ? { replayed: true } : {}) })
          },
        }).run('append')
        const end = result.messages.find((m) => m.role === 'tool')!
        const text = typeof end.content === 'string' ? end.content : JSON.stringify(end.content)
        return { ok: !/^[A-Z_]+: /.test(text), text }
      },
      async close() {
        journal.close()
      },
    }
  },
}

function replayedOf(event: object): { replayed?: true } {
  return (event as { replayed?: unknown }).replayed === true ? { replayed: true } : {}
}

/** The four surfaces, in the order the spec runs them. */
export const SURFACES: readonly SurfaceCase[] = [cli, mcp, aiSdk, runner]
