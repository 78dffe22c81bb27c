/**
 * The credentials of the user running the kit, through every tool: each
 * default unreadable path reads as empty for `bash`; with the root at the
 * home directory, `read`, `edit`, `write` and `grep` refuse them (by real
 * path, through symlinks) and a search never shows their lines. Then the
 * strict profile (`readableHost: 'system'`): the home directory, `/root`
 * and `/home` are not there, ordinary programs still run, and a path named
 * in `readablePaths` is visible. The home directory is a temporary one
 * (`$HOME`, which `os.homedir()` honours when the sandbox is built).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_UNREADABLE_PATHS, Sandbox, createDispatchContext, createTools, type BuiltinTools, type SandboxOptions } from '../../lib/index.js'
import { failure } from '../tools/helpers.js'

/** Outside /tmp on purpose: the host's /tmp is private inside the sandbox, which would hide the files anyway. */
const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir()
const SECRET = 'CREDENTIAL-MATERIAL-51c2e8'
const bwrapUsable = process.platform === 'linux' && new Sandbox().enforcement.engine === 'bubblewrap'

let base: string
let home: string
let root: string
let savedHome: string | undefined

/** What the list must hold: the credentials a review found readable, and those of the main tools. */
const REQUIRED = [
  '~/.config/git/credentials',
  '~/.yarnrc.yml',
  '~/.gem/credentials',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.config/hub',
  '~/.composer/auth.json',
  '~/.config/pip/pip.conf',
  '~/.s3cfg',
  '~/.boto',
  '~/.bash_history',
  '~/.zsh_history',
  '~/.claude',
  '~/.codex',
  '~/.config/anthropic',
  '~/.config/glab-cli',
  '~/.config/containers/auth.json',
  '~/.nuget/NuGet/NuGet.Config',
  '~/.gradle/gradle.properties',
  '~/.local/share/com.vercel.cli',
  '~/.config/configstore/firebase-tools.json',
  '~/.config/Bitwarden CLI',
  '~/.mozilla',
  '~/.config/google-chrome',
  '~/.local/share/keyrings',
  '~/.password-store',
  '/etc/shadow',
]

/** The `~/…` entries (required and default) as files of the temporary home; an entry with another entry below it is a folder. */
const homeEntries = [...new Set([...REQUIRED, ...DEFAULT_UNREADABLE_PATHS])].filter((entry) => entry.startsWith('~/')).map((entry) => entry.slice(2))
const folders = new Set(homeEntries.filter((entry) => homeEntries.some((other) => other.startsWith(`${entry}/`))))

type Tools = BuiltinTools & { sandbox: Sandbox }

function tools(options: SandboxOptions = {}): Tools {
  const sandbox = new Sandbox({ timeoutMs: 30_000, ...options })
  return { ...createTools(sandbox), sandbox }
}

async function bash(set: Tools, script: string): Promise<{ ok: boolean; text: string }> {
  try {
    return { ok: true, text: String(await set.bash.executor(createDispatchContext())({ cmd: 'sh', args: ['-c', script] })) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; details?: { output?: string } } }).cause
    return { ok: false, text: `${cause?.code}: ${cause?.message ?? ''}\n${cause?.details?.output ?? ''}` }
  }
}

async function run(set: Tools, tool: 'read' | 'grep' | 'edit' | 'write', args: Record<string, unknown>): Promise<string> {
  return String(await set[tool].executor(createDispatchContext())(args))
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'toolsmith-credentials-')))
  home = path.join(base, 'home')
  root = path.join(base, 'root')
  fs.mkdirSync(root, { recursive: true })
  for (const entry of homeEntries) {
    const target = path.join(home, entry)
    if (folders.has(entry)) continue
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, `token = ${SECRET} (${entry})\n`)
  }
  // The usual folder forms: a key inside ~/.ssh, a token inside ~/.config/gh.
  fs.rmSync(path.join(home, '.ssh'), { force: true })
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), `-----BEGIN ${SECRET}-----\n`)
  fs.rmSync(path.join(home, '.config/gh'), { force: true })
  fs.mkdirSync(path.join(home, '.config/gh'), { recursive: true })
  fs.writeFileSync(path.join(home, '.config/gh', 'hosts.yml'), `oauth_token: ${SECRET}\n`)
  fs.rmSync(path.join(home, '.claude'), { force: true })
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true })
  fs.writeFileSync(path.join(home, '.claude', '.credentials.json'), `{"accessToken":"${SECRET}"}\n`)
  fs.writeFileSync(path.join(home, '.bashrc'), '# harmless, mentions CREDENTIAL-MATERIAL nowhere\n')
  fs.writeFileSync(path.join(home, 'notes.txt'), 'token = not a secret\n')
  fs.mkdirSync(path.join(home, '.local'), { recursive: true })
  fs.writeFileSync(path.join(home, '.config', 'settings.ini'), 'token = ordinary setting\n')
  savedHome = process.env.HOME
  process.env.HOME = home
})

afterAll(() => {
  if (savedHome === undefined) delete process.env.HOME
  else process.env.HOME = savedHome
  fs.rmSync(base, { recursive: true, force: true })
})

describe('the default unreadable paths', () => {
  it('cover the credentials a review found readable, and the main tools', () => {
    for (const entry of REQUIRED) {
      expect(DEFAULT_UNREADABLE_PATHS).toContain(entry)
    }
  })

  it('are each listed in docs/tools.md, under "Credentials"', () => {
    const docs = fs.readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8')
    const section = docs.slice(docs.indexOf('### Credentials'), docs.indexOf('### The strict profile'))
    for (const entry of DEFAULT_UNREADABLE_PATHS) expect(section).toContain(`\`${entry}\``)
  })

  it.runIf(bwrapUsable)('each reads as empty for bash; the rest of the home directory stays readable', async () => {
    const files = homeEntries.filter((entry) => !folders.has(entry)).map((entry) => path.join(home, entry))
    const script = `for f in ${files.map((f) => `'${f}'`).join(' ')} '${home}'/.ssh/* '${home}'/.config/gh/*; do cat "$f" 2>/dev/null; done; cat '${home}/notes.txt'`
    const masked = await bash(tools({ rootDir: root }), script)
    expect(masked.text).not.toContain(SECRET)
    expect(masked.text).toContain('token = not a secret')
    // Control: the same script reads every one of them without the list.
    const bare = await bash(tools({ rootDir: root, unreadablePaths: [] }), script)
    for (const entry of homeEntries.filter((e) => !folders.has(e) && !['.ssh', '.config/gh', '.claude'].includes(e))) expect(bare.text).toContain(`(${entry})`)
  }, 120_000)

  it.runIf(bwrapUsable && process.getuid?.() === 0 && fs.existsSync('/etc/shadow'))('the host’s /etc/shadow reads as empty even as root', async () => {
    expect(await bash(tools({ rootDir: root }), 'wc -c < /etc/shadow')).toEqual({ ok: true, text: '0\n' })
    expect((await bash(tools({ rootDir: root, unreadablePaths: [] }), 'wc -c < /etc/shadow')).text).not.toBe('0\n')
  })
})

describe('the file tools, with the root at the home directory', () => {
  let set: Tools
  beforeAll(() => {
    set = tools({ rootDir: home })
    // A symlink inside the root that leads into a masked folder (inside the root too: no escape).
    fs.symlinkSync('.ssh', path.join(home, 'keys'))
    fs.symlinkSync('.config', path.join(home, 'cfg'))
  })

  it.each([
    ['read', { path: '.ssh/id_rsa' }],
    ['read', { path: '.ssh/id_rsa', offset: 1, limit: 1 }],
    ['read', { path: '.config/git/credentials' }],
    ['read', { path: '.yarnrc.yml' }],
    ['read', { path: '.claude/.credentials.json' }],
    ['read', { path: '.netrc' }],
    ['read', { path: 'keys/id_rsa' }],
    ['read', { path: 'cfg/gh/hosts.yml' }],
    ['edit', { path: '.ssh/id_rsa', patch: '@@ -1 +1 @@\n-x\n+y\n' }],
    ['edit', { path: 'keys/id_rsa', patch: '@@ -1 +1 @@\n-x\n+y\n' }],
    ['write', { path: '.ssh/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }],
    ['write', { path: '.netrc', content: 'machine evil\n' }],
    ['write', { path: 'keys/id_rsa', content: 'x' }],
    ['grep', { pattern: 'BEGIN', path: '.ssh' }],
    ['grep', { pattern: 'BEGIN', path: '.ssh/id_rsa' }],
    ['grep', { pattern: 'oauth', path: 'cfg/gh' }],
  ] as const)('%s %j is refused: TOOL_PATH_PROTECTED, reason credentials', async (tool, args) => {
    const before = fs.readFileSync(path.join(home, '.ssh', 'id_rsa'), 'utf8')
    const failed = await failure(set[tool], args)
    expect(failed.code).toBe('TOOL_PATH_PROTECTED')
    expect(failed.details).toEqual({ path: args.path, reason: 'credentials' })
    expect(failed.message).toContain('unreadable paths')
    expect(failed.message).not.toContain(SECRET)
    expect(fs.readFileSync(path.join(home, '.ssh', 'id_rsa'), 'utf8')).toBe(before)
    expect(fs.existsSync(path.join(home, '.ssh', 'authorized_keys'))).toBe(false)
  })

  it('the rest of the home directory works as before', async () => {
    expect(await run(set, 'read', { path: 'notes.txt' })).toBe('token = not a secret\n')
    expect(await run(set, 'read', { path: '.config/settings.ini' })).toBe('token = ordinary setting\n')
    expect(await run(set, 'write', { path: 'draft.txt', content: 'ok\n' })).toBe('ok')
    expect(await run(set, 'edit', { path: 'draft.txt', patch: '@@ -1 +1 @@\n-ok\n+fine\n' })).toBe('ok')
    expect(await run(set, 'grep', { pattern: 'ordinary', path: '.config' })).toBe('.config/settings.ini:1:token = ordinary setting\n')
  })

  it.each(['.', '.config', 'cfg', '.local', '.config/..'])('grep of %j never shows a masked file’s lines', async (searched) => {
    const text = await run(set, 'grep', { pattern: 'token|oauth|BEGIN', path: searched })
    expect(text).not.toContain(SECRET)
  })

  it('grep of the root when the credentials are not hidden names: still left out, whatever the ignore files say', async () => {
    // With the root at ~/.config, `gh/hosts.yml` is an ordinary name rg walks into.
    const config = tools({ rootDir: path.join(home, '.config') })
    fs.writeFileSync(path.join(home, '.config', '.ignore'), '!gh\n!gh/**\n!*.yml\n')
    try {
      const text = await run(config, 'grep', { pattern: 'oauth|token', path: '.' })
      expect(text).not.toContain(SECRET)
      expect(text).toContain('settings.ini:1:token = ordinary setting')
      expect((await failure(config.read, { path: 'gh/hosts.yml' })).code).toBe('TOOL_PATH_PROTECTED')
      // Control: without the list the same search shows the token.
      const bare = tools({ rootDir: path.join(home, '.config'), unreadablePaths: [] })
      expect(await run(bare, 'grep', { pattern: 'oauth', path: '.' })).toContain(SECRET)
    } finally {
      fs.rmSync(path.join(home, '.config', '.ignore'))
    }
  })

  it('a root inside a masked folder wins: the user chose to work there', async () => {
    const inside = tools({ rootDir: path.join(home, '.ssh') })
    expect(await run(inside, 'read', { path: 'id_rsa' })).toContain(SECRET)
  })

  it('the list stays the user’s: unreadablePaths replaces it, a spread extends it', async () => {
    const replaced = tools({ rootDir: home, unreadablePaths: ['~/notes.txt'] })
    expect(await run(replaced, 'read', { path: '.ssh/id_rsa' })).toContain(SECRET)
    expect((await failure(replaced.read, { path: 'notes.txt' })).code).toBe('TOOL_PATH_PROTECTED')
    const extended = tools({ rootDir: home, unreadablePaths: [...DEFAULT_UNREADABLE_PATHS, path.join(home, 'notes.txt')] })
    expect((await failure(extended.read, { path: 'notes.txt' })).code).toBe('TOOL_PATH_PROTECTED')
    expect((await failure(extended.read, { path: '.ssh/id_rsa' })).code).toBe('TOOL_PATH_PROTECTED')
  })
})

const has = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0

describe.runIf(bwrapUsable)('the strict profile (readableHost: "system")', () => {
  it('the home directory, /root and /home are not there; system programs still run', async () => {
    const strict = tools({ rootDir: root, readableHost: 'system' })
    expect(strict.sandbox.enforcement.readableHost).toBe('system')
    const hidden = await bash(strict, `cat "$HOME/notes.txt" 2>&1; ls -A /root /home 2>&1; echo "top: $(ls -A / | tr '\\n' ' ')"`)
    expect(hidden.ok).toBe(true)
    expect(hidden.text).not.toContain('not a secret')
    expect(hidden.text).toMatch(/notes\.txt: No such file or directory/)
    expect(hidden.text).toMatch(/cannot access '\/root': No such file or directory/)
    expect(hidden.text).toMatch(/cannot access '\/home': No such file or directory/)
    expect(/^top: (.*)$/m.exec(hidden.text)?.[1]).not.toMatch(/\b(srv|mnt|media|boot|root|home)\b/)
    // Control: the default profile shows the same files.
    expect((await bash(tools({ rootDir: root }), `cat "$HOME/notes.txt"`)).text).toBe('token = not a secret\n')

    const programs = ['sh -c true', 'node -v', 'git --version', ...(has('python3') ? ['python3 -c 1'] : [])]
    const ran = await bash(strict, programs.map((p) => `${p} >/dev/null && echo "ok: ${p}"`).join('; '))
    expect(ran.text.trim().split('\n')).toEqual(programs.map((p) => `ok: ${p}`))
    for (const [cmd, args] of [['node', ['-v']], ['git', ['--version']], ...(has('python3') ? [['python3', ['-c', '1']]] : [])] as const) {
      await expect(strict.bash.executor(createDispatchContext())({ cmd, args: [...args] })).resolves.toBeTypeOf('string')
    }
  }, 120_000)

  it('nothing can be created beside the views, and the system folders stay read-only', async () => {
    const strict = tools({ rootDir: root, readableHost: 'system' })
    const text = (await bash(strict, 'touch /planted 2>&1; touch /usr/planted 2>&1; echo ok > ok.txt; cat ok.txt')).text
    expect(text).toMatch(/\/planted': Read-only file system/)
    expect(text).toMatch(/\/usr\/planted': Read-only file system/)
    expect(text).toContain('ok\n')
  })

  it('a path named in readablePaths is visible (its masked credentials are not); an unnamed sibling is not', async () => {
    const toolchain = path.join(base, 'toolchain')
    fs.mkdirSync(path.join(toolchain, 'bin'), { recursive: true })
    fs.writeFileSync(path.join(toolchain, 'bin', 'hello'), '#!/bin/sh\necho hello from the toolchain\n', { mode: 0o755 })
    fs.writeFileSync(path.join(toolchain, '.netrc-copy'), SECRET)
    const strict = tools({ rootDir: root, readableHost: 'system', readablePaths: [toolchain, '~/.ssh'] })
    expect(strict.sandbox.enforcement.readablePaths).toEqual([toolchain, path.join(home, '.ssh')])
    const seen = await bash(strict, `'${toolchain}/bin/hello'; cat '${toolchain}/.netrc-copy'; echo; ls -A '${home}/.ssh'; cat '${home}/notes.txt' 2>&1`)
    expect(seen.text).toContain('hello from the toolchain')
    expect(seen.text).toContain(SECRET) // named on purpose, and not in unreadablePaths
    expect(seen.text).not.toContain('id_rsa') // named, but masked: unreadablePaths still win
    expect(seen.text).toMatch(/notes\.txt: No such file or directory/)
    // A program under a folder the profile hides: refused before it runs.
    const hiddenProgram = await strict.bash.executor(createDispatchContext())({ cmd: path.join(toolchain, 'bin', 'hello') }).then(
      () => 'ran',
      (error: { cause?: { code?: string } }) => error.cause?.code,
    )
    expect(hiddenProgram).toBe('ran')
    const without = tools({ rootDir: root, readableHost: 'system' })
    const refused = await without.bash.executor(createDispatchContext())({ cmd: path.join(toolchain, 'bin', 'hello') }).then(
      () => 'ran',
      (error: { cause?: { code?: string; message?: string } }) => `${error.cause?.code}: ${error.cause?.message}`,
    )
    expect(refused).toMatch(/^TOOL_COMMAND_NOT_FOUND: .*readablePaths/)
  })

  it('is refused as an option value other than all or system', () => {
    expect(() => createTools({ readableHost: 'none' as never })).toThrow(/readableHost/)
  })
})
