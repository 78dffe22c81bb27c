/**
 * The bind-destination race: bwrap resolves where a protected path's
 * read-only mount goes inside the new namespace, where the root is the live
 * host folder. A folder on that path swapped for a symlink while the
 * sandbox is set up (by another command of the same root) would move the
 * mount and leave the real file writable. The kit checks the sandbox's
 * mounts before the command may run; here the swap is made deterministic
 * through the internal seam between the plan and the spawn.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Sandbox, createDispatchContext, createTools, type BuiltinTools } from '../../lib/index.js'
// Internal on purpose: the seam is no API, only the way to put the swap at the racy moment.
import { mountCheckSeam } from '../../lib/sandbox/os/mount_check.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const osSandbox = new Sandbox().isolation.filesystem
const CONFIG = '[core]\n\trepositoryformatversion = 0\n'

let root: string

function bash(unreadablePaths?: string[]): BuiltinTools['bash'] {
  return createTools({ rootDir: root, timeoutMs: 30_000, ...(unreadablePaths ? { unreadablePaths } : {}) }).bash
}

/** Run a bash call; never throws: the output, or the cause's code and message. */
async function run(script: string, unreadablePaths?: string[]) {
  try {
    const output = await (bash(unreadablePaths).executor(createDispatchContext()) as (a: object) => Promise<unknown>)({ cmd: 'sh', args: ['-c', script] })
    return { ok: true as const, text: String(output) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return { ok: false as const, code: cause?.code, text: cause?.message ?? String(error) }
  }
}

/** Processes whose command line names `needle` (bwrap's names the root). */
function processesNaming(needle: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) found.push(Number(entry))
    } catch {
      // exited meanwhile
    }
  }
  return found
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return condition()
}

beforeEach(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-bindrace-')))
  // A nested repository: `sub/.git` is protected, `sub` is pinned on the way to it.
  fs.mkdirSync(path.join(root, 'sub', '.git'), { recursive: true })
  fs.writeFileSync(path.join(root, 'sub', '.git', 'config'), CONFIG)
  fs.mkdirSync(path.join(root, 'decoy'))
})

afterEach(() => {
  mountCheckSeam.afterPlan = undefined
})

/** What a concurrent command would do at the racy moment: `sub` moved away, a symlink in its place. */
function swapSubForSymlink(): void {
  mountCheckSeam.afterPlan = () => {
    mountCheckSeam.afterPlan = undefined
    fs.renameSync(path.join(root, 'sub'), path.join(root, 'real'))
    fs.symlinkSync('decoy', path.join(root, 'sub'))
  }
}

/** A credentials folder inside the root, masked by `unreadablePaths` (a root at a home directory); a space in its parent's name. */
function makeSecrets(): { masked: string; moved: string } {
  const masked = path.join(root, 'home dir', '.ssh')
  fs.mkdirSync(masked, { recursive: true })
  fs.writeFileSync(path.join(masked, 'id_ed25519'), 's3cret\n')
  return { masked, moved: path.join(root, 'home dir', 'moved') }
}

/** The same swap for any path: moved away, a relative symlink to the decoy in its place. */
function swapForSymlink(target: string, movedTo: string): void {
  mountCheckSeam.afterPlan = () => {
    mountCheckSeam.afterPlan = undefined
    fs.renameSync(target, movedTo)
    fs.symlinkSync(path.relative(path.dirname(target), path.join(root, 'decoy')), target)
  }
}

const STEAL = 'cat "home dir/moved/id_ed25519"; touch ran'

const ATTACK = 'echo "[core] fsmonitor = touch PWNED" >> real/.git/config; touch ran'

describe.skipIf(!osSandbox)('the sandbox checks its mounts before the command runs', () => {
  it('a folder on a protected path swapped for a symlink during set-up: TOOL_PATH_ESCAPE, nothing ran, the file is unchanged', async () => {
    swapSubForSymlink()
    const result = await run(ATTACK)
    expect(result).toMatchObject({ ok: false, code: 'TOOL_PATH_ESCAPE' })
    expect(result.text).toMatch(/nothing ran/)
    expect(result.text).toMatch(/run the command again/)
      expect(fs.existsSync(path.join(root, 'ran'))).toBe(false)
    expect(fs.readFileSync(path.join(root, 'real', '.git', 'config'), 'utf8')).toBe(CONFIG)
  })

  it('an unreadable folder swapped for a symlink during set-up (a mask bwrap does not check itself): TOOL_PATH_ESCAPE, nothing ran, nothing read', async () => {
    const secrets = makeSecrets()
    swapForSymlink(secrets.masked, secrets.moved)
    const result = await run(STEAL, [secrets.masked])
    expect(result).toMatchObject({ ok: false, code: 'TOOL_PATH_ESCAPE' })
    expect(result.text).toMatch(/nothing ran/)
    expect(result.text).toMatch(/run the command again/)
    expect(result.text).toContain(secrets.masked)
    expect(result.text).not.toContain('s3cret')
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false)
  })

  it('leaves no bwrap or command process and no descriptor of the kit behind after the refusal', async () => {
    const secrets = makeSecrets()
    const fdsBefore = fs.readdirSync('/proc/self/fd').length
    swapForSymlink(secrets.masked, secrets.moved)
    const result = await run(`${STEAL}; sleep 600`, [secrets.masked])
    expect(result).toMatchObject({ ok: false, code: 'TOOL_PATH_ESCAPE' })
    expect(await waitFor(() => processesNaming(root).length === 0)).toBe(true)
    expect(await waitFor(() => fs.readdirSync('/proc/self/fd').length <= fdsBefore)).toBe(true)
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false)
  })

  it('without a swap, commands run and the protected path stays read-only', async () => {
    let planned: readonly { path: string; readOnly: boolean }[] = []
    mountCheckSeam.afterPlan = (expected) => {
      planned = expected
    }
    const result = await run('echo ok > out.txt; echo more >> sub/.git/config || echo refused; cat out.txt')
    expect(result).toMatchObject({ ok: true })
    expect(result.text).toMatch(/refused/)
    expect(result.text).toMatch(/ok/)
    expect(fs.readFileSync(path.join(root, 'sub', '.git', 'config'), 'utf8')).toBe(CONFIG)
    // The held-and-checked path was taken: the pin and the read-only mount were planned for the check.
    expect(planned).toEqual(
      expect.arrayContaining([
        { path: path.join(root, 'sub'), readOnly: false },
        { path: path.join(root, 'sub', '.git'), readOnly: true },
      ]),
    )
    // Many in a row, each released once checked.
    for (let i = 0; i < 5; i++) expect(await run(`echo run${i}`)).toMatchObject({ ok: true, text: expect.stringContaining(`run${i}`) })
  })

  it('a masked folder under a name with a space (octal-escaped in mountinfo) passes the check; it reads as empty', async () => {
    const secrets = makeSecrets()
    const result = await run('ls -A "home dir/.ssh"; echo listed', [secrets.masked])
    expect(result).toMatchObject({ ok: true })
    expect(result.text).toMatch(/listed/)
    expect(result.text).not.toContain('id_ed25519')
  })

  it('a root with nothing to protect inside runs as before (no hold)', async () => {
    fs.rmSync(path.join(root, 'sub'), { recursive: true })
    let planned: readonly unknown[] | undefined
    mountCheckSeam.afterPlan = (expected) => {
      planned = expected
    }
    expect(await run('echo plain')).toMatchObject({ ok: true, text: expect.stringContaining('plain') })
    expect(planned).toEqual([])
  })
})
