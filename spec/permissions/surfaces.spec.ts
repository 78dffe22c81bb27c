// One policy file (examples/policy.json), the same decisions on every
// surface: the executor, TurnRunner, an MCP server with a real SDK client
// (elicitation for `ask`), and the AI SDK (MockLanguageModelV3 and its
// tool-approval flow).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { generateText, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  JsonlJournal,
  Permissions,
  Tool,
  TurnRunner,
  createDispatchContext,
  createMcpServer,
  createTools,
  loadPermissionPolicy,
  scriptedModel,
  toAiSdkTools,
  validator,
  type PermissionDecisionEvent,
  type PermissionPolicy,
  type TurnEvent,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

/** The calls every surface makes, by name. */
const CASES = {
  secret: { name: 'write', args: { path: '.env', content: 'x' } },
  source: { name: 'write', args: { path: 'src/a.ts', content: 'x' } },
  readme: { name: 'write', args: { path: 'README.md', content: 'x' } }, // the default: ask
  read: { name: 'read', args: { path: 'src/keep.ts' } },
  traversal: { name: 'edit', args: { path: 'src/../.env', patch: '' } },
} as const
type CaseName = keyof typeof CASES
type Decisions = Record<CaseName, 'allow' | 'deny'>

/** With someone who says yes to every ask. */
const APPROVED: Decisions = { secret: 'deny', source: 'allow', readme: 'allow', read: 'allow', traversal: 'deny' }
/** With nobody to ask, or someone who says no. */
const REFUSED: Decisions = { ...APPROVED, readme: 'deny' }

let policy: PermissionPolicy
let root: string

beforeEach(async () => {
  policy = await loadPermissionPolicy(path.resolve('examples/policy.json'))
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-surfaces-')))
  fs.mkdirSync(path.join(root, 'src'))
  fs.writeFileSync(path.join(root, 'src/keep.ts'), 'keep\n')
})

const tools = () => Object.values(createTools({ rootDir: root, isolation: { filesystem: false } }))

/** Decision events by the case whose call they are about (matched on toolCallId). */
function byCase(events: PermissionDecisionEvent[]): Decisions {
  return Object.fromEntries(events.map((e) => [e.toolCallId, e.decision])) as Decisions
}

describe('the same policy file, the same decisions', () => {
  it('through the executor', async () => {
    for (const [answer, expected] of [[true, APPROVED], [false, REFUSED]] as const) {
      const decided: Partial<Decisions> = {}
      for (const [name, call] of Object.entries(CASES) as [CaseName, (typeof CASES)[CaseName]][]) {
        const permissions = new Permissions({ policy, root, approve: () => answer })
        const ctx = createDispatchContext({ permissions, onPermissionDecision: (e) => (decided[name] = e.decision) })
        await tools().find((t) => t.name === call.name)!.executor(ctx)(call.args).catch(() => undefined)
      }
      expect(decided).toEqual(expected)
    }
  })

  it('through TurnRunner (events and the model see the denials)', async () => {
    for (const [answer, expected] of [[true, APPROVED], [false, REFUSED]] as const) {
      const events: TurnEvent[] = []
      const journal = new JsonlJournal(path.join(root, `journal-${answer}.jsonl`))
      const runner = new TurnRunner({
        journal,
        model: scriptedModel([{ toolCalls: Object.entries(CASES).map(([id, c]) => ({ id, name: c.name, args: c.args })) }, { text: 'done' }]),
        tools: tools(),
        permissions: new Permissions({ policy, root, approve: () => answer }),
        onEvent: (e) => events.push(e),
      })
      const result = await runner.run('go')
      const decisions = events.filter((e): e is Extract<TurnEvent, { type: 'permission-decision' }> => e.type === 'permission-decision')
      expect(byCase(decisions)).toEqual(expected)
      const secret = result.messages.find((m) => m.role === 'tool' && m.toolCallId === 'secret')!
      expect(secret).toMatchObject({ isError: true, content: expect.stringMatching(/^TOOL_DENIED: .*rules\[5\] \("secrets stay secret"\)/) })
      // The journal keeps the denial: code, rule and approver.
      const row = (await journal.list()).find((r) => r.toolName === 'write' && r.status === 'error' && r.errorJson?.includes('secrets stay secret'))!
      expect(JSON.parse(row.errorJson!)).toMatchObject({ code: 'TOOL_DENIED', details: { rule: { index: 5, name: 'secrets stay secret' }, approver: 'policy' } })
    }
  })

  it('through an MCP server: ask goes to the client by elicitation; no elicitation, no approval', async () => {
    for (const [accept, withElicitation, expected] of [[true, true, APPROVED], [false, true, REFUSED], [true, false, REFUSED]] as const) {
      const decided: PermissionDecisionEvent[] = []
      const server = createMcpServer(tools(), {
        name: 'policy',
        version: '1.0.0',
        permissions: new Permissions({ policy, root, onDecision: (e) => decided.push(e) }),
      })
      const client = new Client({ name: 'spec', version: '1.0.0' }, { capabilities: withElicitation ? { elicitation: {} } : {} })
      const asked: string[] = []
      if (withElicitation) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(request.params.message)
          return accept ? { action: 'accept', content: { remember: false } } : { action: 'decline' }
        })
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      await server.connect(serverSide)
      await client.connect(clientSide)
      const results: Record<string, { isError?: boolean; text: string }> = {}
      for (const [name, call] of Object.entries(CASES)) {
        const result = (await client.callTool({ name: call.name, arguments: call.args })) as { isError?: boolean; content: { text: string }[] }
        results[name] = { isError: result.isError, text: result.content[0]!.text }
      }
      await client.close()
      // MCP's toolCallId is the JSON-RPC id: map the decisions back by order.
      const names = Object.keys(CASES) as CaseName[]
      expect(Object.fromEntries(decided.map((e, i) => [names[i], e.decision]))).toEqual(expected)
      expect(results.secret).toMatchObject({ isError: true, text: expect.stringMatching(/^TOOL_DENIED: /) })
      if (withElicitation) expect(asked).toEqual([`The server's permission policy asks before write "README.md". Allow it?`])
      else expect(results.readme!.text).toContain('does not support elicitation')
      expect(decided.find((e) => e.policyDecision === 'ask')!.approver).toBe(withElicitation ? 'mcp-elicitation' : 'none')
    }
  })

  it('through the AI SDK: an approved call runs when the schema fills defaults the model left out', async () => {
    // The SDK validates an approved call's input again and wants the result to
    // equal the call's input: a schema with defaults must still pass.
    const ran: unknown[] = []
    const deploy = new Tool({
      name: 'deploy',
      description: 'Deploy a target',
      inputSchema: validator.object({ target: validator.string().required(), mode: validator.string().default('safe') }),
      sideEffect: true,
      idempotent: true,
      handler: (args) => {
        ran.push(args)
        return `deployed ${args.target} (${args.mode})`
      },
    })
    const ctx = createDispatchContext({ permissions: new Permissions({ policy: { default: 'ask', rules: [] } }) })
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
    const steps: LanguageModelV3GenerateResult[] = [
      {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'deploy', input: JSON.stringify({ target: 'prod' }) }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
    ]
    let call = 0
    const model = new MockLanguageModelV3({ doGenerate: async () => steps[call++]! })
    const aiTools = toAiSdkTools([deploy], ctx)
    const first = await generateText({ model, tools: aiTools, prompt: 'go' })
    const requests = first.content.filter((p) => p.type === 'tool-approval-request')
    expect(requests).toHaveLength(1)
    expect(ran).toEqual([])
    const messages: ModelMessage[] = [
      { role: 'user', content: 'go' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: requests[0]!.approvalId, approved: true }] },
    ]
    const second = await generateText({ model, tools: aiTools, messages })
    expect(ran).toEqual([{ target: 'prod', mode: 'safe' }])
    expect(JSON.stringify(responseMessages(second))).toContain('deployed prod (safe)')
  })

  it('through the AI SDK: ask becomes needsApproval, and only an approved call runs', async () => {
    for (const approved of [true, false]) {
      fs.rmSync(path.join(root, 'README.md'), { force: true })
      const decided: PermissionDecisionEvent[] = []
      const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }), onPermissionDecision: (e) => decided.push(e) })
      const aiTools = toAiSdkTools(tools(), ctx)
      const steps: LanguageModelV3GenerateResult[] = [
        {
          content: Object.entries(CASES).map(([id, c]) => ({ type: 'tool-call' as const, toolCallId: id, toolName: c.name, input: JSON.stringify(c.args) })),
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
          warnings: [],
        },
      ]
      const textStep = (text: string): LanguageModelV3GenerateResult => ({ ...steps[0]!, content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined } })
      steps.push(textStep('waiting'), textStep('done'))
      let call = 0
      const model = new MockLanguageModelV3({ doGenerate: async () => steps[call++]! })

      const first = await generateText({ model, tools: aiTools, prompt: 'go' })
      const requests = first.content.filter((p) => p.type === 'tool-approval-request')
      expect(requests.map((r) => r.toolCall.toolCallId)).toEqual(['readme'])
      expect(fs.existsSync(path.join(root, 'README.md'))).toBe(false)

      const messages: ModelMessage[] = [
        { role: 'user', content: 'go' },
        ...first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: requests[0]!.approvalId, approved }] },
      ]
      await generateText({ model, tools: aiTools, messages })
      expect(fs.existsSync(path.join(root, 'README.md'))).toBe(approved)
      // The SDK's refusal never reaches the executor: the gate decided every other call.
      const expected = approved ? APPROVED : { secret: 'deny', source: 'allow', read: 'allow', traversal: 'deny' }
      expect(byCase(decided)).toEqual(expected)
      if (approved) expect(decided.find((e) => e.toolCallId === 'readme')).toMatchObject({ policyDecision: 'ask', approver: 'ai-sdk' })
    }
  })
})

/**
 * Every message a `generateText` call answered with, under either `ai` major:
 * `ai@7` has them in `responseMessages` (its `response.messages` holds the
 * last step's only, without the result of a call approved in the input
 * messages); `ai@6` accumulates them in `response.messages`.
 */
function responseMessages(result: { response: { messages: readonly unknown[] } }): readonly unknown[] {
  return (result as { responseMessages?: readonly unknown[] }).responseMessages ?? result.response.messages
}
