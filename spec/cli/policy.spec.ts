// `toolsmith call --policy FILE`: the done-when of issue 15, as a user runs it.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
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
    expect(run.stderr).toMatch(/TOOL_DENIED: .*the policy's default asks for approval, and no approver is configured/)
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
    expect(run.output).toContain('Rule 3 (ask before publishing) asks before bash "git push" (it leaves this machine). Allow? [y/N]')
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
