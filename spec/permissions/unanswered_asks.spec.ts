// An `ask` nobody answers: the denial says what happened (no terminal, a
// client without elicitation, a question that timed out), never
// "…and none declined…". Through the public barrel, with a real MCP client.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { beforeEach, describe, expect, it } from 'vitest'
import { Permissions, createDispatchContext, createMcpServer, createTools, type PermissionDecisionEvent, type RawPermissionPolicy } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

let root: string
beforeEach(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-unanswered-')))
})

const POLICY: RawPermissionPolicy = { rules: [{ name: 'ask for docs', tool: 'write', match: { paths: ['docs/**'] }, decision: 'ask' }] }

function tools() {
  return Object.values(createTools({ rootDir: root, isolation: { filesystem: false } }))
}

describe('an approver that says nobody could answer (approver "none")', () => {
  it('denies with its note as the reason, and records approver none', async () => {
    const events: PermissionDecisionEvent[] = []
    const permissions = new Permissions({
      policy: POLICY,
      root,
      approve: () => ({ decision: 'deny', approver: 'none', note: 'nobody is at the keyboard tonight' }),
    })
    const ctx = createDispatchContext({ permissions, onPermissionDecision: (e) => events.push(e) })
    const { write } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const error = await write.executor(ctx)({ path: 'docs/a.md', content: 'x' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'TOOL_DENIED', details: { approver: 'none', note: 'nobody is at the keyboard tonight' } })
    expect((error as Error).message).toContain('rules[0] ("ask for docs") asks for approval, but nobody is at the keyboard tonight.')
    expect((error as Error).message).not.toContain('none declined')
    expect(events).toEqual([expect.objectContaining({ decision: 'deny', approver: 'none', policyDecision: 'ask' })])
    expect(fs.existsSync(path.join(root, 'docs/a.md'))).toBe(false)
  })
})

/** A server with the policy and a v1 SDK client on an in-memory pair. */
async function connect(options: { elicitation: 'none' | 'silent'; approvalTimeoutMs?: number }) {
  const decided: PermissionDecisionEvent[] = []
  const server = createMcpServer(tools(), {
    name: 'unanswered',
    version: '1.0.0',
    permissions: new Permissions({ policy: POLICY, root, onDecision: (e) => decided.push(e) }),
    ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
  })
  const client = new Client({ name: 'spec', version: '1.0.0' }, { capabilities: options.elicitation === 'none' ? {} : { elicitation: {} } })
  const asked: string[] = []
  // A client that shows the question and never answers (a person who walked away).
  if (options.elicitation === 'silent') {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message)
      return new Promise(() => undefined)
    })
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  await client.connect(clientSide)
  const call = async () => {
    // The client's own request timeout is longer than the server's question: the server's answer is what comes back.
    const result = (await client.callTool({ name: 'write', arguments: { path: 'docs/a.md', content: 'x' } }, undefined, { timeout: 30_000 })) as {
      isError?: boolean
      content: { text: string }[]
    }
    return { isError: result.isError === true, text: result.content[0]!.text }
  }
  return { client, decided, asked, call }
}

describe('createMcpServer: an ask the client does not answer', () => {
  it('a client without elicitation: the denial says the client cannot be asked', async () => {
    const { client, decided, call } = await connect({ elicitation: 'none' })
    try {
      const result = await call()
      expect(result.isError).toBe(true)
      expect(result.text).toMatch(/^TOOL_DENIED: .*rules\[0\] \("ask for docs"\) asks for approval, but the MCP client does not support elicitation, so nobody could be asked\./)
      expect(result.text).not.toContain('none declined')
      expect(decided.map((e) => e.approver)).toEqual(['none'])
    } finally {
      await client.close()
    }
  })

  it('approvalTimeoutMs: a question left unanswered denies the call, saying it timed out', async () => {
    const { client, decided, asked, call } = await connect({ elicitation: 'silent', approvalTimeoutMs: 1_000 })
    try {
      const result = await call()
      expect(asked).toEqual(['Permission rule rules[0] ("ask for docs") asks before write "docs/a.md". Allow it?'])
      expect(result.isError).toBe(true)
      expect(result.text).toMatch(
        /^TOOL_DENIED: .*asks for approval, but the question to the MCP client timed out: no answer within 1 second \(the server's approvalTimeoutMs; toolsmith mcp --approval-timeout-ms\)/,
      )
      expect(decided).toEqual([expect.objectContaining({ decision: 'deny', approver: 'none' })])
      expect(fs.existsSync(path.join(root, 'docs/a.md'))).toBe(false)
    } finally {
      await client.close()
    }
  }, 30_000)

  it.each([0, -1, 1.5, '600000', Number.NaN])('refuses approvalTimeoutMs %j with E_INVALID_OPTIONS', (value) => {
    expect(() => createMcpServer(tools(), { name: 'x', version: '1', approvalTimeoutMs: value as number })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS', message: expect.stringContaining('approvalTimeoutMs must be a positive integer') }),
    )
  })

  it('accepts Infinity (no limit)', () => {
    expect(() => createMcpServer(tools(), { name: 'x', version: '1', approvalTimeoutMs: Number.POSITIVE_INFINITY })).not.toThrow()
  })
})
