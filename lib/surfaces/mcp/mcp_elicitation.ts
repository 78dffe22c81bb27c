/**
 * Permission approvals through the MCP client: an `ask` rule becomes a form
 * elicitation. On the 2025 revisions the server sends `elicitation/create`
 * while the call waits; on 2026-07-28 the call answers `input_required` with
 * the question and the client retries it with the reply.
 *
 * @module
 */
import type { ElicitRequestFormParams, ElicitResult, InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server'
import { E_INVALID_OPTIONS } from '../../exceptions.js'
import type { ApprovalRequest, ApprovalResponse, Approver } from '../../permissions/permissions.js'
import { isPlainObject } from '../../utils/guards.js'
import { linkSignals } from '../../utils/linked_signal.js'
import { mcpSdk } from './mcp_sdk.js'
import { MCP_APPROVAL_INPUT_KEY } from './mcp_types.js'

/**
 * How long an approval question sent with `elicitation/create` waits for the
 * client's answer by default: 10 minutes. A person reads the question, and
 * perhaps the file, before answering; the SDK's own request timeout (60 s)
 * would deny a slow human.
 */
const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000

// setTimeout takes at most 2^31 - 1 ms (about 24.8 days); a longer delay fires at once.
const LONGEST_TIMER_MS = 2 ** 31 - 1

/**
 * Check `approvalTimeoutMs`: a positive integer (milliseconds), or
 * `Infinity` for no limit.
 *
 * @param value - The option as given.
 * @returns The timeout to apply, in milliseconds.
 * @throws {@link E_INVALID_OPTIONS} for anything else.
 * @internal
 */
export function resolveApprovalTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_APPROVAL_TIMEOUT_MS
  if (value === Number.POSITIVE_INFINITY) return LONGEST_TIMER_MS
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return Math.min(value, LONGEST_TIMER_MS)
  throw new E_INVALID_OPTIONS(`createMcpServer: approvalTimeoutMs must be a positive integer (milliseconds) or Infinity for no limit (got ${String(value)})`, {
    details: { invalid: ['approvalTimeoutMs'] },
  })
}

/** The first protocol revision without server-to-client requests (answers carry `input_required` instead). */
const MODERN_REVISION = '2026-07-28'

/** An approver for one request, and the question it left for the client. */
export interface ClientApproval {
  /** The approver the call's gate asks. */
  approver: Approver
  /**
   * The `input_required` answer to send instead of the call's result, when
   * the approver was asked on 2026-07-28 and the request carried no reply.
   */
  pending(): InputRequiredResult | undefined
}

/**
 * The approver that asks the MCP client about one request (form
 * elicitation: accept allows, decline or cancel denies; a `remember`
 * checkbox keeps the answer for the rule). A client without elicitation
 * support gets a denial that says so.
 *
 * @param server - The MCP server instance serving the request.
 * @param extra - The request's context (its revision's envelope, its replies).
 * @param inputEnded - Aborts when the client's input ended (stdio): a 2025 question still waiting is denied then.
 * @param timeoutMs - How long a 2025 question waits for the answer (see {@link resolveApprovalTimeout}).
 * @returns The approver and the question it may leave pending.
 * @internal
 */
export function clientApproval(server: Server, extra: ServerContext, inputEnded?: AbortSignal, timeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS): ClientApproval {
  const revision = server.getNegotiatedProtocolVersion()
  if (revision === undefined || revision < MODERN_REVISION) {
    const approver = pushApprover(server, inputEnded, timeoutMs)
    return { approver, pending: () => undefined }
  }
  let question: InputRequiredResult | undefined
  const approver: Approver = async (request) => {
    const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined
    const capabilities = envelope?.[mcpSdk().CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined
    if (!asksForms(capabilities?.elicitation)) return notSupported()
    const reply = extra.mcpReq.inputResponses?.[MCP_APPROVAL_INPUT_KEY]
    if (isPlainObject(reply) && typeof reply.action === 'string') return fromReply(reply as ElicitResult)
    const { inputRequired } = mcpSdk()
    question = inputRequired({ inputRequests: { [MCP_APPROVAL_INPUT_KEY]: inputRequired.elicit(form(request)) } })
    // The call stops here (a denial the client never sees: the answer is the
    // question); the retry carries the reply and is gated again.
    return { decision: 'deny', approver: 'mcp-elicitation', note: 'asked the MCP client (input_required); the call runs when it retries with the answer' }
  }
  return { approver, pending: () => question }
}

/** The 2025 way: ask with `elicitation/create` while the call waits. */
function pushApprover(server: Server, inputEnded: AbortSignal | undefined, timeoutMs: number): Approver {
  return async (request: ApprovalRequest): Promise<ApprovalResponse> => {
    const capabilities = server.getClientCapabilities()
    // A 2025 client over stateless HTTP: this instance never saw its initialize, and has no way back to it.
    if (capabilities === undefined) return noChannel()
    if (!asksForms(capabilities.elicitation)) return notSupported()
    // A transport that knows when the client's input ended (toolsmith's
    // stdio transport) ends the wait there: no answer can come any more, and
    // the SDK would otherwise wait for its request timeout (60 s).
    if (inputEnded?.aborted) return clientGone()
    const linked = inputEnded === undefined ? undefined : linkSignals([request.signal, inputEnded])
    const signal = linked?.signal ?? request.signal
    let result: ElicitResult
    try {
      result = await server.elicitInput(form(request), { signal, timeout: timeoutMs })
    } catch (error) {
      if (inputEnded?.aborted && !request.signal.aborted) return clientGone()
      // The SDK reports its timer and an aborted signal with the same code: only the timer is a timeout.
      if ((error as { code?: unknown }).code === 'REQUEST_TIMEOUT' && !signal.aborted) return timedOut(timeoutMs)
      throw error
    } finally {
      linked?.release()
    }
    return fromReply(result)
  }
}

/** Whether a client's `elicitation` capability covers forms (a bare `{}` predates modes and means forms). */
function asksForms(elicitation: unknown): boolean {
  if (!isPlainObject(elicitation)) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

function fromReply(result: ElicitResult): ApprovalResponse {
  const accepted = result.action === 'accept'
  const remember = accepted && isPlainObject(result.content) && result.content.remember === true
  return {
    decision: accepted ? 'allow' : 'deny',
    approver: 'mcp-elicitation',
    ...(accepted ? {} : { note: `the client answered ${result.action}` }),
    ...(remember ? { remember: true } : {}),
  }
}

function form(request: ApprovalRequest): ElicitRequestFormParams {
  return {
    mode: 'form',
    message: question(request),
    requestedSchema: {
      type: 'object',
      properties: {
        remember: { type: 'boolean', title: 'Allow calls like this for the rest of the session', default: false },
      },
    },
  }
}

function notSupported(): ApprovalResponse {
  return { decision: 'deny', approver: 'none', note: 'the MCP client does not support elicitation, so nobody could be asked' }
}

function noChannel(): ApprovalResponse {
  return {
    decision: 'deny',
    approver: 'none',
    note: 'the MCP client could not be asked: a 2025-revision client served over stateless HTTP has no channel for the question (a 2026-07-28 client, or stdio, can answer)',
  }
}

function timedOut(timeoutMs: number): ApprovalResponse {
  return {
    decision: 'deny',
    // Nobody answered: the denial reads "…asks for approval, but <note>".
    approver: 'none',
    note: `the question to the MCP client timed out: no answer within ${duration(timeoutMs)} (the server's approvalTimeoutMs; toolsmith mcp --approval-timeout-ms)`,
  }
}

/** `10 minutes`, `90 seconds`, `1500 ms`: the timeout as a person would say it. */
function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`
  if (ms % 1000 === 0) return `${ms / 1000} second${ms === 1000 ? '' : 's'}`
  return `${ms} ms`
}

function clientGone(): ApprovalResponse {
  return { decision: 'deny', approver: 'mcp-elicitation', note: 'the MCP client closed its input before answering' }
}

function question(request: ApprovalRequest): string {
  // The rule is named as the denial names it: rules[N], its index in the server's policy file.
  const rule = request.rule === null ? "The server's permission policy" : `Permission rule rules[${request.rule.index}] (${JSON.stringify(request.rule.name)})`
  const subject = request.subject === undefined ? '' : ` ${JSON.stringify(request.subject)}`
  const links = request.hardLinks === undefined ? '' : ` (the file has ${request.hardLinks} names (hard links); the rule may cover one of the others)`
  return `${rule} asks before ${request.toolName}${subject}${links}${request.reason ? `: ${request.reason}` : ''}. Allow it?`
}
