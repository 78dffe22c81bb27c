/**
 * Permission approvals through MCP elicitation: an `ask` rule becomes an
 * `elicitation/create` request to the client, related to the tool call.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ApprovalRequest, ApprovalResponse, Approver } from '../../permissions/permissions.js'
import { linkSignals } from '../../utils/linked_signal.js'

/**
 * An approver that asks the MCP client (form elicitation: accept allows,
 * decline or cancel denies; a `remember` checkbox keeps the answer for the
 * rule). A client without elicitation support gets a denial that says so.
 *
 * @param server - The MCP server serving the call.
 * @returns The approver.
 * @internal
 */
export function elicitationApprover(server: Server): Approver {
  return async (request: ApprovalRequest): Promise<ApprovalResponse> => {
    const elicitation = server.getClientCapabilities()?.elicitation as { form?: object } | undefined
    if (elicitation?.form === undefined) {
      return { decision: 'deny', approver: 'none', note: 'the MCP client does not support elicitation, so nobody could be asked' }
    }
    // A transport that knows when the client's input ended (toolsmith's
    // stdio transport) ends the wait there: no answer can come any more, and
    // the SDK would otherwise wait for its request timeout (60 s).
    const inputEnded = (server.transport as { inputEnded?: unknown } | undefined)?.inputEnded
    if (inputEnded instanceof AbortSignal && inputEnded.aborted) return clientGone()
    const linked = inputEnded instanceof AbortSignal ? linkSignals([request.signal, inputEnded]) : undefined
    let result: Awaited<ReturnType<Server['elicitInput']>>
    try {
      result = await server.elicitInput(
        {
          mode: 'form',
          message: question(request),
          requestedSchema: {
            type: 'object',
            properties: {
              remember: { type: 'boolean', title: 'Allow calls like this for the rest of the session', default: false },
            },
          },
        },
        { signal: linked?.signal ?? request.signal },
      )
    } catch (error) {
      if (inputEnded instanceof AbortSignal && inputEnded.aborted && !request.signal.aborted) return clientGone()
      throw error
    } finally {
      linked?.release()
    }
    const remember = result.action === 'accept' && result.content?.remember === true
    return {
      decision: result.action === 'accept' ? 'allow' : 'deny',
      approver: 'mcp-elicitation',
      ...(result.action === 'accept' ? {} : { note: `the client answered ${result.action}` }),
      ...(remember ? { remember: true } : {}),
    }
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
