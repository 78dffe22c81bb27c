/**
 * The network guard (a word list, checked before spawning) and the network
 * namespace (which stops what a word list cannot). Nothing here contacts an
 * address other than 127.0.0.1.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  GIT_REMOTE_SUBCOMMANDS,
  NETWORK_EXECUTABLES,
  Sandbox,
  assertOfflineCommand,
  createTools,
} from '../../lib/index.js'
import { call, failure, makeFixture, type Fixture } from '../tools/helpers.js'

type Row = readonly [cmd: string, args: readonly string[], code: 'TOOL_NETWORK_DISABLED' | 'TOOL_GIT_REMOTE_DISABLED']

const N = 'TOOL_NETWORK_DISABLED'
const G = 'TOOL_GIT_REMOTE_DISABLED'

const refused: readonly Row[] = [
  // every listed executable, with a harmless-looking argument
  ...NETWORK_EXECUTABLES.map((name): Row => [name, ['--version'], N]),
  // case, paths and version suffixes
  ['CURL', ['example'], N],
  ['Wget', ['example'], N],
  ['/usr/bin/curl', ['example'], N],
  ['./bin/../curl', [], N],
  ['pip3.12', ['install', 'x'], N],
  ['ping6', ['localhost'], N],
  ['curl.exe', [], N],
  // git remote subcommands, after global options too
  ...GIT_REMOTE_SUBCOMMANDS.map((sub): Row => ['git', [sub], G]),
  ['git', ['-C', 'repo', 'push'], G],
  ['git', ['-c', 'user.name=x', 'fetch', 'origin'], G],
  ['git', ['--no-pager', '-C', '.', 'PULL'], G],
  ['/usr/bin/git', ['remote', '-v'], G],
  ['git', ['--git-dir', '.git', 'ls-remote'], G],
  // URLs, addresses and proxies in any argument, any case
  ['echo', ['https://example.com'], N],
  ['node', ['fetch.js', 'HTTP://EXAMPLE.COM'], N],
  ['python3', ['-c', 'import urllib.request as u; u.urlopen("ftp://x")'], N],
  ['echo', ['see www.example.com'], N],
  ['echo', ['WWW.EXAMPLE.COM'], N],
  ['ls', ['git@github.com:org/repo.git'], N],
  ['node', ['client.js', '10.0.0.1:8080'], N],
  ['node', ['client.js', '127.0.0.1:3000'], N],
  ['node', ['client.js', '[::1]:8080'], N],
  ['make', ['--proxy=http'], N],
  ['env', ['HTTPS_PROXY=x', 'ls'], N],
  ['env', ['http_proxy=x', 'ls'], N],
  // wrappers are unwrapped
  ['env', ['curl', 'example'], N],
  ['env', ['-i', 'A=1', '-u', 'B', 'wget', 'x'], N],
  ['env', ['-S', 'curl example'], N],
  ['timeout', ['5', 'wget', 'x'], N],
  ['timeout', ['-s', 'KILL', '-k', '1', '5', 'ssh', 'host'], N],
  ['nice', ['-n', '10', 'curl', 'x'], N],
  ['nohup', ['scp', 'a', 'b'], N],
  ['xargs', ['-n1', 'curl'], N],
  ['xargs', ['-I', '{}', 'wget', '{}'], N],
  ['busybox', ['wget', 'x'], N],
  ['busybox', ['nc', 'host', '80'], N],
  ['sh', ['-c', 'curl example'], N],
  ['bash', ['-c', 'echo hi && wget example'], N],
  ['bash', ['-lc', 'ls | nc host 80'], N],
  ['sh', ['-e', '-c', 'X=1 npm install'], N],
  ['sh', ['-c', 'echo "$(curl example)"'], N],
  ['sh', ['-c', 'echo `wget -qO- x`'], N],
  ['sh', ['-c', 'cd repo; git push origin main'], G],
  ['sh', ['-c', "bash -c 'timeout 5 curl x'"], N],
  ['/bin/sh', ['-c', 'env nice nohup curl x'], N],
  ['timeout', ['5', 'sh', '-c', 'git -C r fetch'], G],
  ['command', ['curl', 'x'], N],
  ['stdbuf', ['-o0', 'wget', 'x'], N],
  // shell options that take a value before -c, and other places the script can sit
  ['bash', ['-o', 'pipefail', '-c', 'curl localhost:1234'], N],
  ['sh', ['-e', '-o', 'errexit', '-c', 'wget localhost'], N],
  ['bash', ['-O', 'extglob', '-c', 'curl x'], N],
  ['bash', ['+o', 'posix', '-c', 'curl x'], N],
  ['bash', ['-eo', 'pipefail', '-c', 'curl x'], N],
  ['bash', ['--rcfile', 'rc', '-c', 'curl x'], N],
  ['bash', ['-c', '--', 'curl x'], N],
  ['bash', ['-c', '-e', 'curl x'], N],
  ['sh', ['-c'], N],
  // a command word the guard cannot know before the script runs
  ['sh', ['-c', 'x=cu; ${x}rl localhost:1234'], N],
  ['sh', ['-c', '$CMD localhost'], N],
  ['sh', ['-c', 'eval "cu""rl" x'], N],
  ['sh', ['-c', '`echo curl` x'], N],
  ['sh', ['-c', '$(echo curl) x'], N],
  ['sh', ['-c', 'alias c=curl; c x'], N],
  ['env', ['$CMD', 'x'], N],
  // reserved words do not hide the command after them
  ['sh', ['-c', 'if curl x; then :; fi'], N],
  ['sh', ['-c', 'while true; do wget x; done'], N],
  // git aliases, commands in config values, and the other remote subcommands
  ['git', ['-c', 'alias.f=fetch', 'f', 'origin'], G],
  ['git', ['-c', 'ALIAS.f=!curl x', 'f'], G],
  ['git', ['--config-env=alias.f=X', 'f'], G],
  // a subcommand computed at run time, or one autocorrected from a misspelling
  ['sh', ['-c', 'git "$(echo pull)" origin'], G],
  ['sh', ['-c', 'git pu?l'], G],
  ['git', ['-c', 'help.autocorrect=1', 'pul'], G],
  // package runners are looked through
  ['npx', ['-y', 'curl-cli', 'x'], N],
  ['sh', ['-c', 'pnpm dlx wget x'], N],
  ['git', ['-c', 'core.pager=curl localhost', 'log'], N],
  ['git', ['archive', '--remote=origin', 'HEAD'], G],
  ['git', ['archive', '--remote', 'origin', 'HEAD'], G],
  ['git', ['-C', 'r', 'fetch-pack', 'x'], G],
  // more wrappers
  ['find', ['.', '-maxdepth', '0', '-exec', 'curl', 'localhost:1234', ';'], N],
  ['find', ['.', '-execdir', 'wget', 'x', '+'], N],
  ['find', ['.', '-ok', 'ssh', 'h', ';'], N],
  ['find', ['.', '-okdir', 'nc', 'h', '80', ';'], N],
  ['find', ['/usr/bin', '-name', 'curl', '-exec', '{}', 'localhost', ';'], N],
  ['xargs', ['-I', '{}', '{}', 'localhost'], N],
  ['flock', ['lock', 'curl', 'x'], N],
  ['flock', ['-w', '5', 'lock', '-c', 'curl x'], N],
  ['watch', ['-n', '1', 'curl', 'x'], N],
  ['strace', ['-f', '-o', 'out', 'curl', 'x'], N],
  ['ltrace', ['-e', 'malloc', 'curl', 'x'], N],
  ['script', ['-q', '-c', 'curl x', '/dev/null'], N],
  ['su', ['-c', 'curl x', 'root'], N],
  ['runuser', ['-u', 'nobody', 'curl', 'x'], N],
  ['runuser', ['nobody', '-c', 'curl x'], N],
  ['taskset', ['0x1', 'curl', 'x'], N],
  ['taskset', ['-c', '0', 'curl', 'x'], N],
  ['chrt', ['-f', '10', 'curl', 'x'], N],
  ['unshare', ['-r', 'curl', 'x'], N],
  ['nsenter', ['-t', '1', '-n', 'curl', 'x'], N],
  ['ionice', ['-c', '3', 'curl', 'x'], N],
  ['chroot', ['/', 'curl', 'x'], N],
  ['setsid', ['-f', 'curl', 'x'], N],
  ['sudo', ['-u', 'bob', 'curl', 'x'], N],
  ['doas', ['curl', 'x'], N],
  ['time', ['-p', 'curl', 'x'], N],
  ['exec', ['-a', 'name', 'curl', 'x'], N],
  ['builtin', ['curl'], N],
]

const allowed: readonly (readonly [string, readonly string[]])[] = [
  ['echo', ['bundle.js']],
  ['echo', ['fetch', 'later']],
  ['git', ['status']],
  ['git', ['diff', '--stat']],
  ['git', ['log', '-n', '3']],
  ['git', ['commit', '-m', 'fetch later']],
  ['git', ['commit', '-m', 'push the button, pull the lever']],
  ['git', ['-C', 'sub', 'status']],
  ['git', ['add', 'remote.ts']],
  ['ls', ['pipeline.txt']],
  ['ls', ['curl']],
  ['cat', ['npm-debug.log']],
  ['grep', ['-r', 'wget', 'src']],
  ['node', ['build.js']],
  ['python3', ['-c', 'print(1 + 1)']],
  ['sh', ['-c', 'echo done > out.txt; cat out.txt']],
  ['sh', ['script.sh']],
  ['env', ['FOO=1', 'node', 'x.js']],
  ['timeout', ['5', 'ls']],
  ['xargs', ['echo']],
  ['echo', ['version 1.2.3']],
  ['echo', ['awww.txt']],
  ['make', ['test']],
  ['tsc', ['-p', 'tsconfig.json']],
  ['find', ['.', '-name', '*.ts']],
  ['find', ['.', '-name', '*.ts', '-exec', 'wc', '-l', '{}', '+']],
  ['sh', ['-c', 'ls -la']],
  ['bash', ['-o', 'pipefail', '-c', 'ls | wc -l']],
  ['bash', ['-eo', 'pipefail', '-c', 'ls']],
  ['sh', ['-c', 'for f in *.ts; do wc -l "$f"; done']],
  ['sh', ['-c', 'echo "$HOME" $(pwd)']],
  ['sh', ['-c', 'if test -f x; then cat x; fi']],
  ['git', ['-c', 'user.name=fetch later', 'commit', '-m', 'x']],
  ['git', ['archive', 'HEAD']],
  ['xargs', ['-I', '{}', 'echo', '{}']],
  ['flock', ['lock', 'ls']],
  ['watch', ['-n', '1', 'ls']],
  ['strace', ['-f', 'ls']],
  ['taskset', ['-c', '0', 'ls']],
  ['script', ['-q', '-c', 'ls', '/dev/null']],
  ['time', ['ls']],
]

describe('network guard', () => {
  it('covers at least 40 refused and 15 allowed commands', () => {
    expect(refused.length).toBeGreaterThanOrEqual(40)
    expect(allowed.length).toBeGreaterThanOrEqual(15)
  })

  it.each(refused)('refuses %s %j', (cmd, args, code) => {
    let thrown: unknown
    try {
      assertOfflineCommand(cmd, args)
    } catch (error) {
      thrown = error
    }
    expect((thrown as { code?: string } | undefined)?.code).toBe(code)
  })

  it.each(allowed)('allows %s %j', (cmd, args) => {
    expect(() => assertOfflineCommand(cmd, args)).not.toThrow()
  })
})

describe('bash with allowNetwork: false and networkGuard: always (the smithers word guard)', () => {
  let fx: Fixture
  beforeAll(() => {
    fx = makeFixture({ networkGuard: 'always' })
  })
  afterAll(() => fx.cleanup())

  it.each(refused.slice(0, 60))('refuses %s %j before spawning', async (cmd, args, code) => {
    const error = await failure(fx.tools.bash, { cmd, args: [...args] })
    expect(error.code).toBe(code)
    expect(error.message).toMatch(/allowNetwork/)
  })

  it('names the program that was refused, even inside a wrapper', async () => {
    const error = await failure(fx.tools.bash, { cmd: 'sh', args: ['-c', 'curl https://example.com'] })
    expect(error.details).toMatchObject({ executable: 'curl' })
    expect(error.message).toMatch(/`curl` reaches the network/)
  })

  it('runs plain commands whose words look like network words', async () => {
    expect(await call(fx.tools.bash, { cmd: 'echo', args: ['bundle.js'] })).toBe('bundle.js\n')
    expect(await call(fx.tools.bash, { cmd: 'echo', args: ['fetch', 'later'] })).toBe('fetch later\n')
    expect(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo pipeline > pipeline.txt; ls pipeline.txt'] })).toBe(
      'pipeline.txt\n',
    )
  })

  it('does not guard when allowNetwork is true', async () => {
    const open = createTools({ rootDir: fx.root, allowNetwork: true, networkGuard: 'always' })
    expect(await call(open.bash, { cmd: 'echo', args: ['https://example.com'] })).toBe('https://example.com\n')
  })

  it('guards by default where no network namespace is made (isolation: { network: false })', async () => {
    const unguarded = createTools({ rootDir: fx.root, isolation: { network: false } })
    expect((await failure(unguarded.bash, { cmd: 'curl', args: ['https://example.com'] })).code).toBe('TOOL_NETWORK_DISABLED')
    expect(new Sandbox({ isolation: { network: false } }).enforcement.networkGuard).toBe(true)
  })
})

describe('network namespace', () => {
  let fx: Fixture
  let server: net.Server
  let port = 0
  let connections = 0

  beforeAll(async () => {
    fx = makeFixture()
    server = net.createServer((socket) => {
      connections++
      socket.end('hello from the host\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as net.AddressInfo).port
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    fx.cleanup()
  })

  // The port goes in through the environment: an "IP:port" argument would be refused by the guard.
  const client = `
    const socket = require('net').connect(Number(process.env.TARGET_PORT), '127.' + '0.0.1')
    socket.on('connect', () => { console.log('CONNECTED'); socket.end() })
    socket.on('error', (error) => { console.log('FAILED ' + error.code); process.exitCode = 0 })
    setTimeout(() => { console.log('FAILED TIMEOUT'); process.exit(0) }, 5000).unref()
  `

  it('reports the truth about this machine (bubblewrap installed: every layer on)', () => {
    expect(new Sandbox().isolation).toEqual({ filesystem: true, network: true, pid: true })
    expect(new Sandbox({ allowNetwork: true }).isolation).toEqual({ filesystem: true, network: false, pid: true })
    expect(new Sandbox().enforcement).toMatchObject({ engine: 'bubblewrap', networkGuard: false })
  })

  it('stops an interpreter from reaching a listener on 127.0.0.1, which allowNetwork: true reaches', async () => {
    const closed = createTools({ rootDir: fx.root, env: { TARGET_PORT: String(port) } })
    const open = createTools({ rootDir: fx.root, env: { TARGET_PORT: String(port) }, allowNetwork: true })

    const before = connections
    const reached = await call(open.bash, { cmd: process.execPath, args: ['-e', client] })
    expect(reached).toContain('CONNECTED')
    expect(connections).toBe(before + 1)

    const blocked = await call(closed.bash, { cmd: process.execPath, args: ['-e', client] })
    expect(blocked).toMatch(/FAILED/)
    expect(connections).toBe(before + 1)

    // Without a network namespace the guard is all there is, and isolation says so.
    const guardOnly = createTools({ rootDir: fx.root, env: { TARGET_PORT: String(port) }, isolation: { network: false } })
    expect(await call(guardOnly.bash, { cmd: process.execPath, args: ['-e', client] })).toContain('CONNECTED')
    expect(connections).toBe(before + 2)
  })

  it('brings loopback up inside the namespace, so local servers still work', async () => {
    const script = `
      const net = require('net')
      const server = net.createServer((s) => s.end('inner\\n')).listen(0, '127.' + '0.0.1', () => {
        net.connect(server.address().port, '127.' + '0.0.1').on('data', (d) => { process.stdout.write(d); server.close(); process.exit(0) })
      })
    `
    expect(await call(fx.tools.bash, { cmd: process.execPath, args: ['-e', script] })).toBe('inner\n')
  })
})
