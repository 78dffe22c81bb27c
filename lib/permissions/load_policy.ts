/**
 * `loadPermissionPolicy`: a policy from a JSON file.
 *
 * @module
 */
import { E_INVALID_POLICY, errorSummary } from '../exceptions.js'
import { NotRegularFileError, readRegularFile } from '../utils/file_kind.js'
import { PermissionPolicy } from './policy.js'

/**
 * Read a JSON policy file (`{ "default"?, "rules": [...] }`, or an array of
 * rules) and check it.
 *
 * @param file - The file's path.
 * @returns The policy.
 * @throws {@link toolsmith/core!E_INVALID_POLICY} when the file cannot be read, is not
 *   a regular file (a FIFO, socket, device or directory is refused without
 *   waiting on it), is not JSON, or has a bad rule: one line, naming the file
 *   and the rule's index
 *   (`Invalid permission policy policy.json: rules[2]: "decision" must be one of [allow, ask, deny]`).
 *
 * @example
 * ```ts
 * const policy = await loadPermissionPolicy('examples/policy.json')
 * const permissions = new Permissions({ policy, root: process.cwd() })
 * ```
 */
export async function loadPermissionPolicy(file: string): Promise<PermissionPolicy> {
  let text: string
  try {
    text = await readRegularFile(file)
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code
    const why =
      cause instanceof NotRegularFileError
        ? `is ${cause.kind}, not a regular file`
        : code === 'ENOENT'
          ? 'does not exist'
          : code === 'ENXIO'
            ? 'is a socket, not a regular file'
            : `cannot be read (${errorSummary(cause)})`
    throw new E_INVALID_POLICY(`Permission policy ${file} ${why}`, { cause, details: { source: file } })
  }
  return parsePermissionPolicy(text, file)
}

/**
 * Check a policy given as JSON text.
 *
 * @param text - The JSON.
 * @param source - Where it came from, for messages.
 * @returns The policy.
 * @throws {@link toolsmith/core!E_INVALID_POLICY} for text that is not JSON or a bad rule.
 */
export function parsePermissionPolicy(text: string, source = 'JSON'): PermissionPolicy {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (cause) {
    throw new E_INVALID_POLICY(`Invalid permission policy ${source}: not JSON (${(cause as Error).message})`, { cause, details: { source } })
  }
  return new PermissionPolicy(raw as never, source)
}
