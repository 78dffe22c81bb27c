// Runs the toolsmith command from source, as a user would run the built one.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** Path of the CLI entry point. */
export const CLI_MAIN = fileURLToPath(new URL('../../../lib/cli/main.ts', import.meta.url))

/** `node --import tsx lib/cli/main.ts`: the same as `npx tsx lib/cli/main.ts`, minus npx's start-up. */
export const CLI_COMMAND = { command: process.execPath, args: ['--import', 'tsx', CLI_MAIN] }

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export function runCli(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...args], {
      cwd: options.cwd,
      // Colour is the colour spec's business: a FORCE_COLOR of the machine running the specs must not colour these.
      env: { ...withoutForcedColour(process.env), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? '')
  })
}

function withoutForcedColour(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _forced, ...rest } = env
  return rest
}

/**
 * The lines of a CLI's stderr that it wrote itself: blank lines and Node's
 * own warning lines (`(node:123) …`, `(Use \`node --trace-warnings …\`)`) left out.
 */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/^\((node:\d+|Use `node)/.test(line))
}
