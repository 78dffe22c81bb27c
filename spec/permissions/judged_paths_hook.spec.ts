// A second name made before the handler's open and removed again right after
// it looked at the descriptor's path must not slip through: the handler
// takes the descriptor's link count before its real path, so a name removed
// in between shows in the path (" (deleted)"). The racer's steps are made
// deterministic with a hook on `node:fs`'s readlink of /proc/self/fd/N (the
// look the handler makes at the descriptor), nothing else changed.
// Security review S5, N1: read, the range and grep fail with the two looks in
// the other order (edit is caught there by its later checks as well).
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Permissions, createDispatchContext, createTools, type PermissionDecisionEvent } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const policy = { rules: [{ tool: ['read', 'grep', 'edit'], match: { paths: ['secrets/**'] }, decision: 'deny' as const }] }

let afterReadlink: (() => void) | undefined
let secretIno = -1
const realReadlinkSync = fs.readlinkSync
const realReadlink = fs.promises.readlink

/** Whether `p` names a descriptor of ours that holds the secret's inode. */
function holdsSecret(p: unknown): boolean {
  const m = typeof p === 'string' ? /^\/proc\/(?:self|\d+)\/fd\/(\d+)$/.exec(p) : null
  if (m === null) return false
  try {
    return fs.fstatSync(Number(m[1])).ino === secretIno
  } catch {
    return false
  }
}

function fire(p: unknown): void {
  if (afterReadlink === undefined || !holdsSecret(p)) return
  const step = afterReadlink
  afterReadlink = undefined
  step()
}

function hook(): void {
  ;(fs as { readlinkSync: unknown }).readlinkSync = function (this: unknown, p: unknown, ...rest: unknown[]) {
    const result = (realReadlinkSync as (...args: unknown[]) => unknown).call(fs, p, ...rest)
    fire(p)
    return result
  }
  ;(fs.promises as { readlink: unknown }).readlink = async (p: unknown, ...rest: unknown[]) => {
    const result = await (realReadlink as (...args: unknown[]) => Promise<unknown>).call(fs.promises, p, ...rest)
    fire(p)
    return result
  }
  syncBuiltinESMExports()
}

afterEach(() => {
  fs.readlinkSync = realReadlinkSync
  fs.promises.readlink = realReadlink
  syncBuiltinESMExports()
  afterReadlink = undefined
})

const calls = {
  read: (tools: ReturnType<typeof createTools>, ctx: ReturnType<typeof createDispatchContext>) => tools.read.executor(ctx)({ path: 'src/a.txt' }),
  'read (a range)': (tools: ReturnType<typeof createTools>, ctx: ReturnType<typeof createDispatchContext>) => tools.read.executor(ctx)({ path: 'src/a.txt', offset: 1, limit: 5 }),
  grep: (tools: ReturnType<typeof createTools>, ctx: ReturnType<typeof createDispatchContext>) => tools.grep.executor(ctx)({ pattern: 'SECRET|harm', path: 'src/a.txt' }),
  edit: (tools: ReturnType<typeof createTools>, ctx: ReturnType<typeof createDispatchContext>) => tools.edit.executor(ctx)({ path: 'src/a.txt', patch: '@@ -1,1 +1,1 @@\n-harmless\n+EDITED\n' }),
}

describe('a second name removed again between the looks at the descriptor is still caught', () => {
  for (const [name, run] of Object.entries(calls)) {
    it(name, async () => {
      const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-hook-')))
      fs.mkdirSync(path.join(root, 'secrets'))
      fs.mkdirSync(path.join(root, 'src'))
      const secret = path.join(root, 'secrets', 'a.txt')
      const target = path.join(root, 'src', 'a.txt')
      fs.writeFileSync(secret, 'harmless\nSECRET\n')
      fs.writeFileSync(target, 'harmless\n')
      secretIno = fs.statSync(secret).ino
      const tools = createTools({ rootDir: root, isolation: { filesystem: false } })
      // Calls made before (the kit has learnt that /proc/self/fd works).
      await tools.read.executor(createDispatchContext())({ path: 'src/a.txt' })
      let armed = true
      const onDecision = (event: PermissionDecisionEvent): void => {
        if (event.decision !== 'allow' || !armed) return
        armed = false
        // After the gate judged src/a.txt (one name): it becomes a second name of the secret…
        fs.linkSync(secret, path.join(root, 'src', 't3'))
        fs.renameSync(path.join(root, 'src', 't3'), target)
        // …and once the handler has looked at the descriptor's path, an ordinary file takes the name back.
        afterReadlink = () => {
          fs.writeFileSync(path.join(root, 'src', 't4'), 'harmless\n')
          fs.renameSync(path.join(root, 'src', 't4'), target)
        }
      }
      hook()
      const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision }) })
      const outcome = await run(tools, ctx).then(
        (result) => ({ result }),
        (error: { cause?: { code?: string } }) => ({ code: error.cause?.code }),
      )
      expect(armed).toBe(false)
      expect(outcome).toEqual({ code: 'TOOL_PATH_ESCAPE' })
      expect(fs.readFileSync(target, 'utf8')).toBe('harmless\n')
      expect(fs.readFileSync(secret, 'utf8')).toBe('harmless\nSECRET\n')
    })
  }
})
