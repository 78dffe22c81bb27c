/**
 * `toolsmith mcp`: the five built-in tools served over MCP on stdio (or Streamable HTTP with `--http`).
 *
 * @module
 */
import type { Tool } from '../core/tool.js'
import type { McpServerOptions } from '../surfaces/mcp/mcp_server.js'
import { probeBubblewrapAsync } from '../sandbox/os/bubblewrap_probe.js'
import { importMcpSdk } from '../surfaces/mcp/mcp_sdk.js'
import { serveMcpStdio } from '../surfaces/mcp/mcp_stdio_serve.js'
import type { ParsedCommandLine } from './options.js'
import type { CliIo } from './io.js'
import { commandJournal } from './journal_option.js'
import { commandPermissions } from './policy.js'
import { commandSandbox } from './sandbox_tools.js'
import { createTools } from '../tools/index.js'
import { CliUsageError } from './usage.js'
import { packageVersion } from './version.js'

/**
 * Run `mcp` until the client closes stdin (or, with `--http`, until the process is signalled).
 *
 * @param parsed - The command line.
 * @param io - The streams (stdout carries the protocol, so nothing else is written there).
 * @returns 0 once the connection closes.
 * @throws {@link CliUsageError} for extra arguments or a bad `--root`.
 */
export async function runMcp(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  if (parsed.args.length > 0) throw new CliUsageError(`Unexpected argument "${parsed.args[0]}"`, 'mcp')
  // The HTTP half (the SDK's Node adapter and hono) loads only for --http:
  // a stdio server's start-up does not compile it.
  const http = parsed.http === undefined ? undefined : await import('./mcp_http.js')
  const binding = parsed.http === undefined ? undefined : http!.parseHttpBinding(parsed.http)
  // Start-up is what an MCP client waits for. The bubblewrap probe (bwrap
  // run in child processes, which decides how bash is sandboxed) and loading
  // the MCP SDK (the largest part, all on this thread) are independent: run
  // the probe while the SDK loads rather than one after the other.
  // (--no-os-sandbox runs no bwrap: nothing to probe.) The SDK is imported
  // as ES modules: in this command's bundle that build is half the code of
  // the CommonJS one the library's synchronous accessors would require.
  const probed = parsed.sandbox.isolation?.filesystem === false ? Promise.resolve() : probeBubblewrapAsync()
  await importMcpSdk({ http: binding !== undefined })
  await probed
  const sandbox = commandSandbox(parsed.sandbox, 'mcp')
  const tools = createTools(sandbox)
  // No approver of its own: `ask` goes to the client by elicitation, or is denied.
  const permissions = await commandPermissions(parsed.policy, sandbox.rootDir, 'mcp')
  const opened = commandJournal(parsed, 'mcp')
  const options = {
    ...(permissions ? { permissions } : {}),
    ...(opened ? { journal: opened.journal } : {}),
    name: 'toolsmith',
    version: packageVersion(),
    // The cap the tools apply is the cap of the result sent back: a 1 MB read
    // allowed by --max-output-bytes must not be cut again at the default 200 KB.
    ...(parsed.sandbox.maxOutputBytes !== undefined ? { maxResultBytes: parsed.sandbox.maxOutputBytes } : {}),
    ...(parsed.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: parsed.approvalTimeoutMs } : {}),
    instructions:
      'Files are read, written and searched inside one sandbox directory; bash runs an executable with arguments ' +
      '(no shell) in that directory.',
  }
  try {
    if (binding !== undefined) {
      const origins = parsed.allowedOrigins
      return await http!.serveHttp(binding, Object.values(tools), origins === undefined ? options : { ...options, allowedOrigins: ['localhost', '127.0.0.1', '[::1]', ...origins] }, io)
    }
    await serveStdio(Object.values(tools), options, io)
    return 0
  } finally {
    await opened?.close()
  }
}

async function serveStdio(tools: Tool[], options: McpServerOptions, io: CliIo): Promise<void> {
  // Not the SDK's StdioServerTransport: that one leaves malformed lines
  // unanswered and closes (exit 0, silently) on a line over 10 MiB.
  const serving = serveMcpStdio(tools, { ...options, stdin: io.stdin, stdout: io.stdout })
  const { transport } = serving
  const closed = new Promise<void>((resolve) => {
    void serving.closed.then(resolve)
    // Input ended: answer every request already read, then exit.
    io.stdin.once('end', () => void transport.settled().then(resolve))
    process.once('SIGTERM', resolve)
    process.once('SIGINT', resolve)
  })
  await closed
  await serving.close().catch(() => undefined)
}
