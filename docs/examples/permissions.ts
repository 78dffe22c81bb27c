/**
 * A permission policy on the five built-in tools: deny, allow, ask (answered
 * in code), remembered approvals, and the decision events.
 *
 *   npx tsx docs/examples/permissions.ts
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Permissions, createDispatchContext, createTools, errorSummary, loadPermissionPolicy } from 'toolsmith'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-permissions-'))
fs.mkdirSync(path.join(root, 'src'))
const { write, bash } = createTools({ rootDir: root, isolation: { filesystem: false } })

const permissions = new Permissions({
  policy: await loadPermissionPolicy(new URL('../../examples/policy.json', import.meta.url).pathname),
  root,
  // Asked for every `ask`; `remember` answers the same rule for the rest of the turn.
  approve: ({ toolName, subject, rule }) => {
    console.log(`asked: ${toolName} ${subject} (${rule?.name ?? 'default'})`)
    return { decision: 'allow', remember: true, note: 'reviewed' }
  },
})
const ctx = createDispatchContext({
  permissions,
  onPermissionDecision: (e) => console.log(`decision: ${e.toolName} ${e.decision} by ${e.approver} (${e.rule?.name ?? 'default'})`),
})

async function show(name: string, run: () => Promise<unknown>): Promise<void> {
  try {
    console.log(name, '→', JSON.stringify(await run()))
  } catch (error) {
    console.log(name, '→', errorSummary(error).split('\n')[0])
  }
}

try {
  await show('write .env', () => write.executor(ctx)({ path: '.env', content: 'TOKEN=1' }))
  await show('write src/../.env', () => write.executor(ctx)({ path: 'src/../.env', content: 'TOKEN=1' }))
  await show('write src/a.ts', () => write.executor(ctx)({ path: 'src/a.ts', content: 'export {}\n' }))
  await show('write README.md', () => write.executor(ctx)({ path: 'README.md', content: '# hi\n' }))
  await show('write NOTES.md', () => write.executor(ctx)({ path: 'NOTES.md', content: 'remembered\n' }))
  await show('git reset --hard', () => bash.executor(ctx)({ cmd: 'sh', args: ['-c', 'env GIT_DIR=.git git reset  --hard'] }))
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
