// `toolsmith mcp --approval-timeout-ms`: an approval question the client
// leaves unanswered denies the call once the time is up, saying so. A real
// server process, spoken to line by line as a 2025-revision client.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND } from './support/run_cli.js'

const POLICY = path.resolve('examples/policy.json')

function project(): string {
  const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-cli-approval-')))
  fs.mkdirSync(path.join(root, 'src'))
  return root
}

describe('toolsmith mcp --policy --approval-timeout-ms: a question nobody answers', () => {
  it('denies the call when the time is up, saying it timed out, and keeps serving', async () => {
    const root = project()
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'mcp', '--root', root, '--policy', POLICY, '--approval-timeout-ms', '1500'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    onTestFinished(() => void child.kill('SIGKILL'))
    const lines: { id?: unknown; method?: string; result?: { isError?: boolean; content?: { text: string }[] } }[] = []
    let buffer = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk
      let end: number
      while ((end = buffer.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, end)))
        buffer = buffer.slice(end + 1)
      }
    })
    const waitFor = async (match: (line: (typeof lines)[number]) => boolean): Promise<(typeof lines)[number]> => {
      for (;;) {
        const found = lines.find(match)
        if (found !== undefined) return found
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'slow', version: '1' } } })
    await waitFor((line) => line.id === 1)
    send({ method: 'notifications/initialized' })
    send({ id: 2, method: 'tools/call', params: { name: 'write', arguments: { path: 'README.md', content: 'x' } } })
    // The server asks; this client never answers.
    await waitFor((line) => line.method === 'elicitation/create')
    const answer = await waitFor((line) => line.id === 2)
    expect(answer.result?.isError).toBe(true)
    expect(answer.result?.content?.[0]?.text).toMatch(
      /^TOOL_DENIED: .*the policy's default asks for approval, but the question to the MCP client timed out: no answer within 1500 ms/,
    )
    expect(fs.existsSync(path.join(root, 'README.md'))).toBe(false)
    // Still serving: the next call is answered.
    send({ id: 3, method: 'tools/call', params: { name: 'write', arguments: { path: 'src/a.ts', content: 'x' } } })
    expect((await waitFor((line) => line.id === 3)).result).toMatchObject({ content: [{ text: 'ok' }] })
  }, 60_000)
})
