/** Every tool the provider specs cover: the custom ones and the five built-ins. */
import { trackedMkdtemp } from '../../support/temp_dirs.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTools, type Tool } from '../../../lib/index.js'
import { createFailingTool, createTicketTool } from './custom_tools.js'

/** The built-ins, rooted at a throwaway directory (their definitions do not depend on it). */
export function builtinTools(rootDir = trackedMkdtemp(join(tmpdir(), 'toolsmith-providers-'))): Tool[] {
  const { read, write, edit, grep, bash } = createTools({ rootDir })
  return [read, write, edit, grep, bash]
}

/** Custom tools first, then the built-ins. */
export function allTools(): Tool[] {
  return [createTicketTool(), createFailingTool(), ...builtinTools()]
}
