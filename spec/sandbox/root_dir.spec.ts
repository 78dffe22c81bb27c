/**
 * A `rootDir` that is given is checked when the sandbox is created: missing
 * or not a directory, `createTools` and `new Sandbox` throw
 * `E_TOOL_NOT_A_DIRECTORY` naming it, instead of accepting it and failing
 * at the first call with a code about the file the call named. The ready
 * instances (no `rootDir`) stay lazy.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeEach, describe, expect, it } from 'vitest'
import { E_TOOL_NOT_A_DIRECTORY, Sandbox, createTools } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { failure } from '../tools/helpers.js'

let base: string
beforeEach(() => {
  base = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-rootdir-')))
})

function thrown(make: () => unknown): unknown {
  try {
    make()
  } catch (error) {
    return error
  }
  return undefined
}

describe('a given rootDir is checked when the sandbox is created', () => {
  const roots: [string, () => string, string][] = [
    ['a missing directory', () => path.join(base, 'nope'), 'does not exist'],
    ['a path under a missing directory', () => path.join(base, 'nope', 'deeper'), 'does not exist'],
    ['a file', () => writeFile(path.join(base, 'file.txt')), 'is not a directory'],
    ['a path under a file', () => path.join(writeFile(path.join(base, 'file.txt')), 'sub'), 'does not exist'],
    ['a dangling symlink', () => symlink(path.join(base, 'gone'), path.join(base, 'dangling')), 'does not exist'],
    ['a symlink to a file', () => symlink(writeFile(path.join(base, 'file.txt')), path.join(base, 'to-file')), 'is not a directory'],
    ['a FIFO', () => fifo(path.join(base, 'fifo')), 'is not a directory'],
  ]

  it.each(roots)('createTools refuses %s with E_TOOL_NOT_A_DIRECTORY naming it', (_name, make, why) => {
    const root = make()
    const error = thrown(() => createTools({ rootDir: root }))
    expect(error).toBeInstanceOf(E_TOOL_NOT_A_DIRECTORY)
    expect(error).toMatchObject({ code: 'TOOL_NOT_A_DIRECTORY', details: { path: root } })
    expect((error as Error).message).toContain(`The sandbox root ${JSON.stringify(root)} ${why}`)
  })

  it.each(roots)('new Sandbox refuses %s the same way', (_name, make) => {
    const root = make()
    expect(thrown(() => new Sandbox({ rootDir: root }))).toMatchObject({ code: 'TOOL_NOT_A_DIRECTORY', details: { path: root } })
  })

  it('creates nothing: the missing root is still missing', () => {
    const root = path.join(base, 'nope')
    thrown(() => createTools({ rootDir: root }))
    expect(fs.existsSync(root)).toBe(false)
  })

  it('a relative root is checked against the cwd, and named as the absolute path', () => {
    const error = thrown(() => createTools({ rootDir: 'surely/not/here' }))
    expect(error).toMatchObject({ code: 'TOOL_NOT_A_DIRECTORY', details: { path: path.resolve('surely/not/here') } })
  })

  it('a directory, and a symlink to one, are accepted', () => {
    fs.mkdirSync(path.join(base, 'dir'))
    expect(() => createTools({ rootDir: path.join(base, 'dir') })).not.toThrow()
    expect(() => createTools({ rootDir: symlink(path.join(base, 'dir'), path.join(base, 'to-dir')) })).not.toThrow()
  })

  it('a root replaced by a file after creation is TOOL_NOT_A_DIRECTORY at the call', async () => {
    const root = path.join(base, 'root')
    fs.mkdirSync(root)
    const tools = createTools({ rootDir: root })
    fs.rmdirSync(root)
    writeFile(root)
    const read = await failure(tools.read, { path: 'a.txt' })
    expect(read).toMatchObject({ code: 'TOOL_NOT_A_DIRECTORY', details: { path: root } })
    expect(read.message).toContain('is not a directory')
    expect((await failure(tools.bash, { cmd: 'true' })).code).toBe('TOOL_NOT_A_DIRECTORY')
  })
})

describe('the ready instances stay lazy', () => {
  it('creating tools without a root checks nothing: a removed cwd fails only at the first call', () => {
    // A child process, whose cwd is removed once toolsmith is loaded (the TypeScript loader needs it until then).
    const cwd = path.join(base, 'cwd')
    fs.mkdirSync(cwd)
    const script = `
      import fs from 'node:fs'
      const { read, createTools, createDispatchContext } = await import(${JSON.stringify(path.resolve('lib/index.ts'))})
      fs.rmdirSync(process.cwd())
      const mine = createTools()
      for (const tool of [read, mine.read]) {
        try { await tool.executor(createDispatchContext())({ path: 'a.txt' }); console.log('ran') }
        catch (error) { console.log(error.cause?.code ?? error.code) }
      }`
    // tsx by its resolved path: the child's cwd is outside the project.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
    const child = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { cwd, encoding: 'utf8', timeout: 120_000 })
    expect(child.stderr).not.toMatch(/Error/)
    expect(child.stdout.trim().split('\n')).toEqual(['TOOL_NOT_A_DIRECTORY', 'TOOL_NOT_A_DIRECTORY'])
  }, 150_000)
})

function writeFile(file: string): string {
  fs.writeFileSync(file, 'x\n')
  return file
}

function symlink(target: string, link: string): string {
  fs.symlinkSync(target, link)
  return link
}

function fifo(file: string): string {
  spawnSync('mkfifo', [file])
  return file
}
