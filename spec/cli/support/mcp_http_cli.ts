// `toolsmith mcp --http` as a user starts it: on a free loopback port, stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process'
import { CLI_COMMAND } from './run_cli.js'

/** `toolsmith mcp --http 127.0.0.1:0 …`, once it prints the URL it serves on. */
export async function startHttp(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'mcp', '--http', '127.0.0.1:0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      const match = /serving MCP on (http:\/\/\S+)/.exec(stderr)
      if (match) resolveUrl(match[1]!)
    })
    child.on('exit', (code) => reject(new Error(`toolsmith mcp --http exited (${code}) before serving: ${stderr}`)))
  })
  return { url, child }
}

/** SIGTERM, then wait for the exit. */
export async function stopHttp(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((done) => child.once('exit', done))
  child.kill('SIGTERM')
  await exited
}
