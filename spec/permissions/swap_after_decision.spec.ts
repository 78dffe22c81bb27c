// A read the policy allowed must read the file the policy judged: a path
// swapped between the decision and the open (a symlink to a denied file, a
// directory swapped for a symlink to a denied folder) is refused, for whole
// reads and for ranges. The swap is made from the decision event, which
// fires after the gate resolved the path and before the handler opens it.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Permissions, createDispatchContext, createTools, type PermissionDecisionEvent } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const policy = {
  rules: [
    { tool: 'read', match: { paths: ['.env*'] }, decision: 'deny' as const },
    { tool: 'read', match: { paths: ['secrets/**'] }, decision: 'deny' as const },
  ],
}

function layout(): string {
  const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-swap-')))
  fs.mkdirSync(path.join(root, 'secrets'))
  fs.writeFileSync(path.join(root, 'secrets', 'a.txt'), 'SECRET in secrets\n')
  fs.writeFileSync(path.join(root, '.env'), 'SECRET in .env\n')
  fs.writeFileSync(path.join(root, 'notes.txt'), 'harmless\n')
  fs.mkdirSync(path.join(root, 'src'))
  fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'harmless\n')
  return root
}

const swaps: Record<string, { input: string; swap: (root: string) => void }> = {
  'the file becomes a symlink to .env': {
    input: 'notes.txt',
    swap: (root) => {
      fs.rmSync(path.join(root, 'notes.txt'))
      fs.symlinkSync('.env', path.join(root, 'notes.txt'))
    },
  },
  'a directory on the path becomes a symlink to secrets/': {
    input: 'src/a.txt',
    swap: (root) => {
      fs.renameSync(path.join(root, 'src'), path.join(root, 'src.old'))
      fs.symlinkSync('secrets', path.join(root, 'src'))
    },
  },
}

describe('read after an allow: a path swapped before the open is refused, never read', () => {
  for (const [name, { input, swap }] of Object.entries(swaps)) {
    for (const args of [{}, { offset: 1, limit: 5 }]) {
      it(`${name} (${Object.keys(args).length === 0 ? 'whole file' : 'a range'})`, async () => {
        const root = layout()
        const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
        let swapped = false
        const decisions: PermissionDecisionEvent[] = []
        const onDecision = (event: PermissionDecisionEvent): void => {
          decisions.push(event)
          if (event.decision === 'allow' && !swapped) {
            swapped = true
            swap(root)
          }
        }
        const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision }) })
        const outcome = await read.executor(ctx)({ path: input, ...args }).then(
          (text) => ({ text }),
          (error: { code?: string; cause?: { code?: string; message?: string } }) => ({ code: error.code, cause: error.cause?.code, message: error.cause?.message }),
        )
        expect(swapped).toBe(true)
        expect(decisions.map((d) => d.decision)).toEqual(['allow'])
        expect(outcome).toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR', cause: 'TOOL_PATH_ESCAPE' })
        expect(JSON.stringify(outcome)).not.toContain('SECRET')
        expect((outcome as { message?: string }).message).toContain('changed while it was being opened')
        // The control: the same path on the swapped layout is denied by the policy.
        const control = createDispatchContext({ permissions: new Permissions({ policy, root }) })
        await expect(read.executor(control)({ path: input, ...args })).rejects.toMatchObject({ code: 'TOOL_DENIED' })
      })
    }
  }

  it('without a swap the allowed read returns the file (the control for the specs above)', async () => {
    const root = layout()
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }) })
    expect(await read.executor(ctx)({ path: 'src/a.txt' })).toBe('harmless\n')
    expect(await read.executor(ctx)({ path: 'notes.txt', offset: 1, limit: 5 })).toContain('harmless')
  })
})
