/**
 * `--policy FILE` for `call` and `mcp`: the permission gate of a command,
 * and the terminal approver of `call`.
 *
 * @module
 */
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { errorSummary } from '../exceptions.js'
import { loadPermissionPolicy } from '../permissions/load_policy.js'
import { Permissions, type ApprovalRequest, type Approver } from '../permissions/permissions.js'
import { oneLine, type CliIo } from './io.js'
import { CliUsageError } from './usage.js'

/**
 * Load `--policy FILE` into a gate rooted at the sandbox root; a bad file is a
 * usage error naming the rule.
 *
 * @param file - The policy file, or `undefined` when `--policy` was not given.
 * @param root - The sandbox root (path rules are relative to it).
 * @param command - The command, for the error's help pointer.
 * @param approve - Who answers `ask` (the terminal for `call` on a TTY).
 * @returns The gate, or `undefined` without `--policy`.
 * @throws {@link CliUsageError} when the policy cannot be loaded.
 */
export async function commandPermissions(
  file: string | undefined,
  root: string,
  command: string,
  approve?: { approve: Approver; name: string },
): Promise<Permissions | undefined> {
  if (file === undefined) return undefined
  try {
    const policy = await loadPermissionPolicy(file)
    return new Permissions({ policy, root, ...(approve ? { approve: approve.approve, approverName: approve.name } : {}) })
  } catch (error) {
    throw new CliUsageError(oneLine(errorSummary(error).replace(/^E_INVALID_POLICY: /, '')), command)
  }
}

/**
 * Whether the command can ask a person: stdin and stderr are terminals.
 *
 * @param io - The streams.
 * @returns Whether `ask` can be put to the user.
 */
export function canAskOnTerminal(io: CliIo): boolean {
  return (io.stdin as { isTTY?: boolean }).isTTY === true && (io.stderr as { isTTY?: boolean }).isTTY === true
}

/**
 * An approver that asks on the terminal: the question on stderr, one line of
 * answer from stdin (`y` allows, anything else denies).
 *
 * @param input - Where the answer is read.
 * @param output - Where the question is written.
 * @returns The approver.
 */
export function terminalApprover(input: Readable, output: Writable): Approver {
  return (request) =>
    new Promise((resolve) => {
      const rl = createInterface({ input, output, terminal: false })
      // Resolve before closing: close() emits 'close' at once, which answers no.
      const done = (answer: boolean): void => {
        resolve(answer)
        rl.close()
      }
      rl.once('line', (line) => done(/^\s*y(es)?\s*$/i.test(line)))
      rl.once('close', () => resolve(false))
      request.signal.addEventListener('abort', () => done(false), { once: true })
      output.write(`${question(request)} [y/N] `)
    })
}

/**
 * The approver of `call` when nobody is at a terminal: it denies every ask,
 * saying why and what to do instead (approver `none`: nobody could be asked).
 *
 * @returns The approver.
 */
export function noTerminalApprover(): Approver {
  return () => ({
    decision: 'deny',
    approver: 'none',
    note:
      'there is no terminal to ask on (stdin or stderr is not a terminal), so nobody could be asked: ' +
      'run the command in a terminal to answer the question, or add a rule to the --policy file that allows this call',
  })
}

function question(request: ApprovalRequest): string {
  // The rule is named as the denial and `journal audit` name it: rules[N], its index in the policy file.
  const rule = request.rule === null ? "The policy's default" : `rules[${request.rule.index}] (${JSON.stringify(request.rule.name)})`
  const subject = request.subject === undefined ? '' : ` ${JSON.stringify(request.subject)}`
  const links = request.hardLinks === undefined ? '' : ` (the file has ${request.hardLinks} names (hard links); the rule may cover one of the others)`
  return `toolsmith: ${rule} asks before ${request.toolName}${subject}${links}${request.reason ? ` (${request.reason})` : ''}. Allow?`
}
