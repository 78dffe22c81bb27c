/**
 * What a `bash` call runs: the command in the sandbox, and its end turned
 * into the tool's result or error. Loaded by the first call (see
 * `loadBashRun` in `bash.ts`).
 *
 * @module
 */
import { E_TOOL_COMMAND_FAILED } from '../exceptions.js'
import type { DispatchContext, ToolOutputChunk } from '../core/dispatch_context.js'
import type { ToolCallInfo } from '../core/tool.js'
import { isPromiseLike } from '../utils/guards.js'
import { runInSandbox, whyProtected, type NetworkDecision, type ProtectedMatch } from '../sandbox/run_command.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { BashArgs } from './builtin_args.js'

/** Most refused hosts named in the note under a command's output. */
const MAX_NOTED_REFUSALS = 10

/** The note added to a command's output when the proxy refused some of its requests. */
function refusalNote(decisions: readonly NetworkDecision[]): string {
  const refused = new Map<string, NetworkDecision>()
  for (const decision of decisions) if (!decision.allowed) refused.set(`${decision.host}:${decision.port}`, decision)
  if (refused.size === 0) return ''
  const named = [...refused.values()].slice(0, MAX_NOTED_REFUSALS).map((d) => `${d.host}:${d.port} (${d.reason})`)
  const more = refused.size > MAX_NOTED_REFUSALS ? ` and ${refused.size - MAX_NOTED_REFUSALS} more` : ''
  const hosts = [...new Set([...refused.values()].map((d) => d.host))].slice(0, MAX_NOTED_REFUSALS)
  return (
    `[toolsmith] The network proxy refused ${named.join(', ')}${more}. Nothing was sent to ${refused.size === 1 ? 'it' : 'them'}. ` +
    `If the task needs ${hosts.length === 1 ? 'this host' : 'these hosts'}, ask the user to add ${hosts.map((h) => JSON.stringify(h)).join(', ')} ` +
    'to the sandbox\'s allowNetwork.domains (toolsmith CLI: --allow-domain).\n'
  )
}

function withNote(output: string, note: string): string {
  if (note === '') return output
  return `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}${note}`
}

/** What resolver and connect failures print, in the programs agents run most. */
const NETWORK_FAILURE =
  /could not resolve host|temporary failure in name resolution|name or service not known|getaddrinfo|EAI_AGAIN|ENOTFOUND|ENETUNREACH|network is unreachable|failed to establish a new connection|no address associated with hostname|nodename nor servname|could not connect to server|failed to connect to|connection refused|ECONNREFUSED/i

/** The line added to the output of a failed command that looks like it tried the network. */
export const NETWORK_OFF_NOTE =
  '[toolsmith] Note: this sandbox has no network (only its own loopback); the failure above looks like a network access. Work offline, or ask the user to allow the network.'

function withNetworkNote(output: string): string {
  if (!NETWORK_FAILURE.test(output)) return output
  return `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}${NETWORK_OFF_NOTE}\n`
}

/** Most created protected paths named in the note under a command's output. */
const MAX_NOTED_PROTECTED = 10

/**
 * The note added to a command's output when it created protected paths:
 * what they are, why they matter, and what the model should do.
 */
function protectedNote(created: readonly ProtectedMatch[]): string {
  if (created.length === 0) return ''
  const named = created.slice(0, MAX_NOTED_PROTECTED).map((match) => `${match.path} (${whyProtected(match)})`)
  const more = created.length > MAX_NOTED_PROTECTED ? ` and ${created.length - MAX_NOTED_PROTECTED} more` : ''
  const one = created.length === 1
  return (
    `[toolsmith] This command created ${named.join('; ')}${more}: ${one ? 'a protected path that' : 'protected paths that'} can run code on the host later, ` +
    `outside the sandbox (the sandbox's readOnlyPaths). The sandbox cannot stop a command from creating ${one ? 'it' : 'them'}; ` +
    `from now on ${one ? 'it is' : 'they are'} read-only to every tool. Tell the user about ${one ? 'it' : 'them'} in your answer, ` +
    'and ask them to remove what the task did not need.\n'
  )
}

/**
 * The `bash` tool's handler, as a function of its sandbox: what
 * `BashTool` runs after validation. The sandbox runs the command
 * ({@link runInSandbox}); this turns its end into the tool's result or error.
 *
 * @param sandbox - The sandbox whose root and limits apply.
 * @param args - Validated args.
 * @param call - The call (its abort signal is honoured).
 * @param ctx - The dispatch context: hears the allowlist proxy's `networkRequest` decisions and `protectedPathCreated`.
 * @returns The tool's result text.
 * @internal
 */
export async function bashHandler(
  sandbox: Sandbox,
  { cmd, args = [], opts = {} }: BashArgs,
  call: ToolCallInfo,
  ctx?: DispatchContext,
): Promise<string> {
  const result = await runInSandbox(sandbox, {
    cmd,
    args,
    cwd: opts.cwd,
    signal: call.signal,
    onNetworkDecision: (decision) =>
      ctx?.emitNetworkRequest?.({ ...decision, toolName: call.toolName, callId: call.callId, turnId: ctx.id, at: Date.now() }),
    onProtectedPathsCreated: (created) =>
      ctx?.emitProtectedPathCreated?.({
        toolName: call.toolName,
        turnId: ctx.id,
        callId: call.callId,
        paths: created.map(({ path, rule }) => ({ path, rule })),
        at: Date.now(),
      }),
    ...(ctx?.onToolOutput === undefined ? {} : { onOutput: liveOutput(ctx.onToolOutput, call) }),
  })
  const { status, output: raw, networkDecisions, protectedPathsCreated: created } = result
  const note = networkDecisions === undefined ? '' : refusalNote(networkDecisions)
  if (status.exitCode === 0) return withNote(withNote(raw, note), protectedNote(created))
  const how = status.exitCode === null ? `was killed by ${status.signal ?? 'a signal'}` : `exited with code ${status.exitCode}${status.hint}`
  const limited = result.limitExceeded(how)
  if (limited !== undefined) throw limited
  const output = withNote(
    networkDecisions !== undefined ? withNote(raw, note) : result.networkIsolated ? withNetworkNote(raw) : raw,
    protectedNote(created),
  )
  const createdDetails = created.length > 0 ? { protectedPathsCreated: created.map(({ path, rule }) => ({ path, rule })) } : {}
  throw new E_TOOL_COMMAND_FAILED(`\`${cmd}\` ${how}. Output:\n${output}`, {
    details: { exitCode: status.exitCode, signal: status.signal, output, ...createdDetails },
  })
}

/**
 * The command's output as {@link ToolOutputChunk}s for the context's
 * listener. A listener that throws is reported, never allowed to break the
 * command: its output is still captured and returned.
 */
function liveOutput(
  listener: (chunk: ToolOutputChunk) => void,
  call: ToolCallInfo,
): (stream: 'stdout' | 'stderr', text: string) => void {
  // One warning per call, not per chunk: a listener that throws on every
  // chunk of a long build would otherwise flood stderr. A listener that
  // returns a promise gets its rejection caught too.
  let warned = false
  const warn = (error: unknown): void => {
    if (warned) return
    warned = true
    process.emitWarning(`An onToolOutput listener threw: ${String((error as Error)?.message ?? error)}`, {
      code: 'TOOLSMITH_LISTENER_ERROR',
    })
  }
  return (stream, text) => {
    try {
      const returned: unknown = listener({ toolName: call.toolName, callId: call.callId, stream, text })
      if (isPromiseLike(returned)) Promise.resolve(returned).catch(warn)
    } catch (error) {
      warn(error)
    }
  }
}
