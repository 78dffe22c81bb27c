// `toolsmith call --policy FILE`: the done-when of issue 15, as a user runs it.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, onTestFinished } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND, runCli } from './support/run_cli.js'

const POLICY = path.resolve('examples/policy.json')

function project(): string {
  const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-cli-policy-')))
  fs.mkdirSync(path.join(root, 'src'))
  return root
}

describe('toolsmith call --policy', () => {
  it('refuses write .env with TOOL_DENIED naming the rule, and writes nothing', async () => {
    const root = project()
    const run = await runCli(['call', 'write', '{"path":".env","content":"x"}', '--policy', POLICY, '--root', root])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^TOOL_DENIED: Permission denied for write "\.env": rules\[5\] \("secrets stay secret"\) denies it: environment files and secrets\/ are off limits/)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(fs.existsSync(path.join(root, '.env'))).toBe(false)
  })

  it('allows what the policy allows (write in src/)', async () => {
    const root = project()
    const run = await runCli(['call', 'write', '{"path":"src/a.ts","content":"x"}', '--policy', POLICY, '--root', root])
    expect(run).toMatchObject({ code: 0, stdout: 'ok\n' })
    expect(fs.readFileSync(path.join(root, 'src/a.ts'), 'utf8')).toBe('x')
  })

  it('an ask without a terminal is denied, and says why', async () => {
    const root = project()
    const run = await runCli(['call', 'write', '{"path":"README.md","content":"x"}', '--policy', POLICY, '--root', root])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /TOOL_DENIED: .*the policy's default asks for approval, but there is no terminal to ask on \(stdin or stderr is not a terminal\), so nobody could be asked: run the command in a terminal to answer the question, or add a rule to the --policy file that allows this call/,
    )
    expect(fs.existsSync(path.join(root, 'README.md'))).toBe(false)
  })

  it('a policy with a bad rule is a usage error naming the rule by index', async () => {
    const root = project()
    const file = path.join(root, 'bad.json')
    fs.writeFileSync(file, JSON.stringify({ rules: [{ tool: 'read', decision: 'allow' }, { tool: 'write', decision: 'perhaps' }] }))
    const run = await runCli(['call', 'read', '{"path":"x"}', '--policy', file, '--root', root])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`Invalid permission policy ${file}: rules[1]: "decision" must be one of [allow, ask, deny]`)
  })
})

/** Run the CLI on a pseudo-terminal (util-linux `script`), answering the first question with `answer`. */
function runOnTerminal(args: string[], answer: string): Promise<{ code: number | null; output: string }> {
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let output = ''
    let answered = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      if (!answered && output.includes('Allow? [y/N]')) {
        answered = true
        child.stdin.write(`${answer}\n`)
      }
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

const hasScript = spawnSync('script', ['--version']).status === 0

describe.runIf(hasScript)('toolsmith call --policy on a terminal', () => {
  it('asks, and "y" runs the call', async () => {
    const root = project()
    const run = await runOnTerminal(['call', 'write', '{"path":"README.md","content":"x"}', '--policy', POLICY, '--root', root], 'y')
    expect(run.output).toContain(`The policy's default asks before write "README.md". Allow? [y/N]`)
    expect(run.code).toBe(0)
    expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('x')
  })

  it('asks, and anything else denies with TOOL_DENIED naming the terminal', async () => {
    const root = project()
    const run = await runOnTerminal(['call', 'bash', '{"cmd":"git","args":["push"]}', '--policy', POLICY, '--root', root], 'n')
    // The prompt names the rule as the denial does: rules[3], its index in the policy file.
    expect(run.output).toContain('rules[3] ("ask before publishing") asks before bash "git push" (it leaves this machine). Allow? [y/N]')
    expect(run.output).toMatch(/TOOL_DENIED: .*rules\[3\] \("ask before publishing"\) asks for approval, and terminal declined/)
    expect(run.code).toBe(1)
  })

  it('a deny rule is never put to the user', async () => {
    const root = project()
    const run = await runOnTerminal(['call', 'write', '{"path":".env","content":"x"}', '--policy', POLICY, '--root', root], 'y')
    expect(run.output).not.toContain('Allow?')
    expect(run.output).toContain('TOOL_DENIED')
    expect(fs.existsSync(path.join(root, '.env'))).toBe(false)
  })
})

describe('toolsmith mcp --policy, driven by the official stdio client', () => {
  async function session(elicitation: boolean, accept: boolean) {
    const root = project()
    const transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, 'mcp', '--root', root, '--policy', POLICY],
      stderr: 'ignore',
    })
    const client = new Client({ name: 'policy-spec', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {} })
    const asked: string[] = []
    if (elicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message)
        return accept ? { action: 'accept', content: {} } : { action: 'decline' }
      })
    }
    await client.connect(transport)
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] }
      return { isError: result.isError === true, text: result.content[0]!.text }
    }
    return { root, client, asked, call }
  }

  it('denies .env, allows src/, and puts an ask to a client that supports elicitation', async () => {
    const { root, client, asked, call } = await session(true, true)
    try {
      expect(await call('write', { path: '.env', content: 'x' })).toMatchObject({ isError: true, text: expect.stringMatching(/^TOOL_DENIED: .*rules\[5\] \("secrets stay secret"\)/) })
      expect(await call('write', { path: 'src/a.ts', content: 'x' })).toEqual({ isError: false, text: 'ok' })
      expect(await call('write', { path: 'README.md', content: 'x' })).toEqual({ isError: false, text: 'ok' })
      expect(asked).toEqual([`The server's permission policy asks before write "README.md". Allow it?`])
      expect(fs.existsSync(path.join(root, '.env'))).toBe(false)
      expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('x')
    } finally {
      await client.close()
    }
  })

  it('denies an ask when the client cannot be asked', async () => {
    const { root, client, call } = await session(false, false)
    try {
      expect(await call('write', { path: 'README.md', content: 'x' })).toMatchObject({ isError: true, text: expect.stringContaining('does not support elicitation') })
      expect(fs.existsSync(path.join(root, 'README.md'))).toBe(false)
    } finally {
      await client.close()
    }
  })
})

describe('toolsmith mcp --policy: the client closes its input while an approval is pending', () => {
  it('denies the pending call at once, answers it, and exits (no wait for the 60 s request timeout)', async () => {
    const root = project()
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'mcp', '--root', root, '--policy', POLICY], { stdio: ['pipe', 'pipe', 'ignore'] })
    const lines: { id?: unknown; method?: string; result?: { isError?: boolean; content?: { text: string }[] } }[] = []
    let buffer = ''
    let wake: (() => void) | undefined
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk
      let end: number
      while ((end = buffer.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, end)))
        buffer = buffer.slice(end + 1)
      }
      wake?.()
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const waitFor = async (match: (line: (typeof lines)[number]) => boolean): Promise<(typeof lines)[number]> => {
      for (;;) {
        const found = lines.find(match)
        if (found !== undefined) return found
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 100)
        })
      }
    }
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    onTestFinished(() => void child.kill('SIGKILL'))
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'gone', version: '1' } } })
    await waitFor((line) => line.id === 1)
    send({ method: 'notifications/initialized' })
    send({ id: 2, method: 'tools/call', params: { name: 'write', arguments: { path: 'README.md', content: 'x' } } })
    // The server asks (elicitation/create); the client goes away instead of answering.
    await waitFor((line) => line.method === 'elicitation/create')
    const closedAt = Date.now()
    child.stdin.end()
    const answer = await waitFor((line) => line.id === 2)
    expect(answer.result?.isError).toBe(true)
    expect(answer.result?.content?.[0]?.text).toMatch(/^TOOL_DENIED: .*the MCP client closed its input before answering/)
    expect(await exited).toBe(0)
    // Well under the SDK's 60 s request timeout it used to wait for.
    expect(Date.now() - closedAt).toBeLessThan(20_000)
    expect(fs.existsSync(path.join(root, 'README.md'))).toBe(false)
  }, 40_000)
})
