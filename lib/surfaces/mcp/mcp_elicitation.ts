/**
 * Permission approvals through the MCP client: an `ask` rule becomes a form
 * elicitation. On the 2025 revisions the server sends `elicitation/create`
 * while the call waits; on 2026-07-28 the call answers `input_required` with
 * the question and the client retries it with the reply.
 *
 * @module
 */
import type { ElicitRequestFormParams, ElicitResult, InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server'
import type { ApprovalRequest, ApprovalResponse, Approver } from '../../permissions/permissions.js'
import { isPlainObject } from '../../utils/guards.js'
import { linkSignals } from '../../utils/linked_signal.js'
import { mcpSdk } from './mcp_sdk.js'
import { MCP_APPROVAL_INPUT_KEY } from './mcp_types.js'

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
 * @returns The approver and the question it may leave pending.
 * @internal
 */
export function clientApproval(server: Server, extra: ServerContext, inputEnded?: AbortSignal): ClientApproval {
  const revision = server.getNegotiatedProtocolVersion()
  if (revision === undefined || revision < MODERN_REVISION) {
    const approver = pushApprover(server, inputEnded)
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
function pushApprover(server: Server, inputEnded: AbortSignal | undefined): Approver {
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
    let result: ElicitResult
    try {
      result = await server.elicitInput(form(request), { signal: linked?.signal ?? request.signal })
    } catch (error) {
      if (inputEnded?.aborted && !request.signal.aborted) return clientGone()
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

function clientGone(): ApprovalResponse {
  return { decision: 'deny', approver: 'mcp-elicitation', note: 'the MCP client closed its input before answering' }
}

function question(request: ApprovalRequest): string {
  const rule = request.rule === null ? "The server's permission policy" : `Permission rule ${request.rule.index} (${request.rule.name})`
  const subject = request.subject === undefined ? '' : ` ${JSON.stringify(request.subject)}`
  const links = request.hardLinks === undefined ? '' : ` (the file has ${request.hardLinks} names (hard links); the rule may cover one of the others)`
  return `${rule} asks before ${request.toolName}${subject}${links}${request.reason ? `: ${request.reason}` : ''}. Allow it?`
}
