/**
 * The argument roles the built-in tools declare, for specs that ask a policy
 * about a call directly (`policy.decide`, `permissions.preview`) rather than
 * through a tool. spec/permissions/argument_roles.spec.ts checks they are
 * exactly what the built-ins declare.
 */
import type { ArgumentRoles } from '../../lib/index.js'

/** `read`, `write` and `edit`: one file path. */
export const PATH_ROLES: ArgumentRoles = { path: 'path' }
/** `grep`: a folder searched below. */
export const SEARCH_ROLES: ArgumentRoles = { searchRoot: 'path' }
/** `bash`: the program, its arguments and its working directory. */
export const BASH_ROLES: ArgumentRoles = { command: 'cmd', commandArgs: 'args', workingDirectory: 'opts.cwd' }

/** The roles of a built-in tool by name. */
export function builtinRoles(toolName: string): ArgumentRoles | undefined {
  if (toolName === 'bash') return BASH_ROLES
  if (toolName === 'grep') return SEARCH_ROLES
  return toolName === 'read' || toolName === 'write' || toolName === 'edit' ? PATH_ROLES : undefined
}
