// Permissions fail closed: a program that runs a command given in its
// arguments is looked through (its command judged like a top-level one) or
// makes the call unknowable (it matches every deny and ask rule, and no
// allow rule); a command named by a path matches only an allow rule written
// with that path; `allow git …` does not cover git in another directory.
// Every `deny` case of the first table, the path cases and the git cases are
// `allow` on the code before this change. The real-process block shows that
// each of the review's seven spellings really runs `rm -rf v`.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Permissions, createDispatchContext, createTools } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { BASH_ROLES } from '../support/builtin_roles.js'

const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-fail-closed-')))

/** Every bash call allowed, except what a deny rule names. */
const open = new Permissions({
  root,
  policy: {
    rules: [
      { tool: 'bash', decision: 'allow' },
      { tool: 'bash', match: { commands: ['rm -rf'] }, decision: 'deny' },
    ],
  },
})

type Call = { cmd: string; args: string[]; opts?: { cwd: string } }
const bash = (script: string): Call => ({ cmd: 'bash', args: ['-c', script] })
const argv = (...words: string[]): Call => ({ cmd: words[0]!, args: words.slice(1) })

async function decide(permissions: Permissions, call: Call): Promise<string> {
  return await permissions.preview({ toolName: 'bash', roles: BASH_ROLES, callId: 'c', args: call })
}

/** The security review's seven spellings of `rm -rf v`. */
const REVIEW: readonly Call[] = [
  argv('setpriv', '--reuid=0', 'rm', '-rf', 'v'),
  argv('prlimit', '--nofile=100', 'rm', '-rf', 'v'),
  argv('gdb', '-batch', '-ex', 'run', '--args', 'rm', '-rf', 'v'),
  argv('script', '-qc', 'rm -rf v', '/dev/null'),
  bash("tar -cf a.tar notes.txt && tar -xf a.tar --to-command='rm -rf v'"),
  bash("compgen -C 'rm -rf v' x"),
  bash("mapfile -C 'rm -rf v;:' -c 1 < notes.txt"),
]

/**
 * The second review's spellings that really run `rm -rf v`: arithmetic on a
 * variable's value, a code option inside a cluster, a module that runs
 * code, runners the table lacked, and `--interactive=never` for `-f`.
 */
const REVIEW2: readonly Call[] = [
  bash("x='a[$(rm -rf v)]'; echo $((x))"),
  bash("x='a[$(rm -rf v)]'; [[ $x -eq 0 ]]"),
  bash("declare -i n; n='a[$(rm -rf v)]'"),
  bash("read -r x <<< 'a[$(rm -rf v)]'; (( x ))"),
  argv('perl', '-le', 'system "rm -rf v"'),
  argv('python3', '-m', 'timeit', '-n1', '-r1', '-s', 'import os; os.system("rm -rf v")'),
  argv('capsh', '--', '-c', 'rm -rf v'),
  argv('sg', 'root', '-c', 'rm -rf v'),
  argv('sg', 'root', 'rm -rf v'),
  bash('rm -r --interactive=never v'),
]

describe('a program that runs a command given in its arguments never gets `rm -rf` past `deny rm -rf`', () => {
  it.each<[string, Call]>([
    ...REVIEW.map((call): [string, Call] => [[call.cmd, ...call.args].join(' '), call]),
    ...REVIEW2.map((call): [string, Call] => [[call.cmd, ...call.args].join(' '), call]),
    ...[
      'setpriv --reuid 0 --clear-groups rm -rf v',
      'prlimit -n100 --as=1000000 rm -rf v',
      'prlimit --nofile=100 --bogus rm -rf v', // an option the kit does not know: unknowable
      'lldb -- rm -rf v',
      'strace -f -o /dev/null rm -rf v',
      'ltrace -o /dev/null rm -rf v',
      'valgrind --tool=none rm -rf v',
      'perf stat rm -rf v',
      'time -f %e rm -rf v',
      '/usr/bin/time -o /dev/null rm -rf v',
      "script -c 'rm -rf v' -q /dev/null",
      "echo 'rm -rf v' | script -q /dev/null",
      "tar --to-comm 'rm -rf v' -xf a.tar",
      "tar -xf a.tar --use-compress-program='rm -rf v'",
      "tar -xI 'rm -rf v' -f a.tar",
      "tar xIf 'rm -rf v' a.tar",
      "tar -xf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf v'",
      'tar -xf a.tar --info-script=evil.sh',
      'tar -xf a.tar -F evil.sh',
      "complete -C 'rm -rf v' x",
      "compgen -W '$(rm -rf v)' x",
      "readarray -C 'rm -rf v;:' -c 1 < notes.txt",
      "trap 'rm -rf v' EXIT",
      "eval 'rm -rf v'",
      'exec rm -rf v',
      'command rm -rf v',
      'builtin eval rm -rf v',
      'coproc rm -rf v',
      'nice -n 5 rm -rf v',
      'nice -5 rm -rf v',
      'ionice -c 3 rm -rf v',
      'taskset -c 0 rm -rf v',
      'chrt -o 0 rm -rf v',
      'flock /tmp/lock rm -rf v',
      "flock /tmp/lock -c 'rm -rf v'",
      'timeout -s9 5 rm -rf v',
      'stdbuf -oL rm -rf v',
      'chroot / rm -rf v',
      'unshare -r rm -rf v',
      'nsenter -t 1 -m rm -rf v',
      'sudo -u root rm -rf v',
      "sudo -s <<< 'rm -rf v'",
      'doas rm -rf v',
      "su -c 'rm -rf v'",
      "su -lc 'rm -rf v' root",
      "su root -c 'rm -rf v'",
      "su -s /usr/bin/python3 -c 'import os'",
      'runuser -u root -- rm -rf v',
      'pkexec rm -rf v',
      'busybox rm -rf v',
      'env -S "rm -rf v"',
      'env -C /tmp rm -rf v',
      'env -u HOME rm -rf v',
      "watch -n 1 'rm -rf v'",
      "parallel rm -rf ::: v",
      'find . -maxdepth 0 -exec rm -rf v ;',
      'find . -maxdepth 0 -execdir rm -rf v ;',
      'echo v | xargs rm -rf',
      'nohup rm -rf v',
      'setsid rm -rf v',
      'fakeroot rm -rf v',
      'firejail --quiet rm -rf v',
      'systemd-run rm -rf v',
      "ssh host 'rm -rf v'",
      'ssh -p 22 host rm -rf v',
      "ssh -o ProxyCommand='rm -rf v' host",
      "scp -o 'ProxyCommand rm -rf v' a host:b",
      "rsync -e 'rm -rf v' a host:b",
      "rsync -avze 'rm -rf v' a host:b",
      "git -c alias.x='!rm -rf v' x",
      "git -c core.sshCommand='rm -rf v' fetch",
      "git -c core.pager='rm -rf v' log",
      'git --exec-path=./bin status',
      "git rebase --exec 'rm -rf v' main",
      "git rebase -x 'rm -rf v' main",
      "git submodule foreach 'rm -rf v'",
      'git bisect run rm -rf v',
      "git filter-branch --tree-filter 'rm -rf v' HEAD",
      "make CC='rm -rf v'",
      "make --eval='x:;rm -rf v' x",
      "python3 -c 'import os; os.system(\"rm -rf v\")'",
      "python3 - <<< 'import os'",
      "node -e 'require(\"fs\").rmSync(\"v\", {recursive: true})'",
      "perl -pi -e 'system(\"rm -rf v\")' notes.txt",
      "perl -e 'system(\"rm -rf v\")'",
      "ruby -e 'system(\"rm -rf v\")'",
      "awk 'BEGIN { system(\"rm -rf v\") }'",
      "awk 'BEGIN { print | \"sh\" }'",
      "sed -n '1e rm -rf v' notes.txt",
      "sed 's/.*/rm -rf v/e' notes.txt",
      "zip -T -TT 'rm -rf v' a.zip notes.txt",
      "vim -c '!rm -rf v' -c q",
      "less '+!rm -rf v' notes.txt",
      "LESSOPEN='|rm -rf v %s' less notes.txt",
      "PAGER='rm -rf v' git log",
      "GIT_SSH_COMMAND='rm -rf v' git fetch",
      "TAR_OPTIONS='--to-command=rm\\ -rf\\ v' tar -xf a.tar",
      "env 'BASH_FUNC_x%%=() { rm -rf v; }' bash -c x",
      './rm -rf v',
      '/tmp/x/rm -rf v',
      "man -P 'rm -rf v' ls",
      "scp -S 'rm -rf v' a host:b",
      "git difftool -x 'rm -rf v' HEAD",
      'git --config-env=core.pager=P log',
      'git -c core.hooksPath=hooks commit -m x',
      "make SHELL=./evil.sh all",
      'sudo -e notes.txt',
      "bwrap --bind / / rm -rf v",
      "tmux new-session 'rm -rf v'",
      "sed -i -e 's/x/y/' -e '1e rm -rf v' notes.txt",
      'chpst -u root rm -rf v', // runit and busybox applets
      'setuidgid root rm -rf v',
      'envdir env.d rm -rf v',
      'softlimit -m 1000000 rm -rf v',
      'setarch x86_64 -R rm -rf v',
      'linux64 rm -rf v',
      // Arithmetic on values the script does not show.
      "let 'a[$(rm -rf v)]'",
      "(( 'a[$(rm -rf v)]' ))",
      'x=$1; echo $[x]',
      'for ((i = n; i < 1; i++)); do :; done',
      'typeset -i n; n=$1',
      'local -ri n=$1',
      'a[$1]=1',
      "sh -c 'echo $((y))'",
      '[[ -n $y && $y -lt 3 ]]',
      // Code options inside clusters, and modules that run the code they are given.
      "perl -ne 'system \"rm -rf v\"' notes.txt",
      "perl -Mstrict -lane 'system \"rm -rf v\"'",
      "perl -CSAe 'system \"rm -rf v\"'",
      "perl '-Mstrict;system \"rm -rf v\"' notes.pl",
      "ruby -le 'system \"rm -rf v\"'",
      "node -p 'require(\"child_process\").execSync(\"rm -rf v\")'",
      "/usr/bin/python3 -m timeit -s 'import os; os.system(\"rm -rf v\")'",
      "python3 -Im cProfile -m timeit 'import os'",
      "python3 -m pdb -c '!import os' x.py",
      'python3 -m code',
      // Runners the table lacked.
      'runcon u:r:t:s0 rm -rf v',
      'runcon -t t rm -rf v',
      "git grep -O'rm -rf v' -e x",
      "git grep --open-files-in-pager='rm -rf v' x",
      "git send-email --to-cmd='rm -rf v' x.patch",
      "git send-email --sendmail-cmd='rm -rf v' x.patch",
      "git difftool --extcmd='rm -rf v' HEAD",
      "sort --compress-program='rm -rf v' notes.txt",
      "awk -f /dev/stdin notes.txt",
      "bind -x '\"a\":rm -rf v'",
      'fc -s rm',
      'enable -f ./x.so x',
      // Other spellings of -f.
      'rm -R --inter=n v',
      'rm --recursive --interactive=none v',
    ].map((script): [string, Call] => [script, bash(script)]),
  ])('%s', async (_name, call) => {
    expect(await decide(open, call)).toBe('deny')
  })
})

describe('a denial because the command cannot be known says why', () => {
  it('names what cannot be read, through the executor', async () => {
    const bashTool = createTools({ rootDir: root, isolation: { filesystem: false } }).bash
    const ctx = createDispatchContext({ permissions: open })
    await expect(bashTool.executor(ctx)({ cmd: 'python3', args: ['-c', 'print(1)'] })).rejects.toThrow(
      /Permission denied for bash .*cannot be known before it runs: `python3?` runs code given on the command line.*denies it/,
    )
  })
})

describe('ordinary commands keep their decisions', () => {
  const strict = new Permissions({
    root,
    policy: {
      default: 'ask',
      rules: [
        { tool: 'bash', match: { commands: ['git status', 'git log', 'echo', 'ls', 'npm test', 'sed', 'awk', 'tar', 'make', 'python3'] }, decision: 'allow' },
        { tool: 'bash', match: { commands: ['rm -rf'] }, decision: 'deny' },
      ],
    },
  })
  it.each<[string, Call]>([
    ['git status', argv('git', 'status')],
    ['echo hi', argv('echo', 'hi')],
    ['ls -la', argv('ls', '-la')],
    ['npm test', argv('npm', 'test')],
    ['/usr/bin/echo hi', argv('/usr/bin/echo', 'hi')], // the system's own directory: what PATH finds
    ['timeout 600 npm test', bash('timeout 600 npm test')],
    ['nice -n 5 npm test', bash('nice -n 5 npm test')],
    ['env CI=1 timeout --foreground 5 npm test', bash('env CI=1 timeout --foreground 5 npm test')],
    ['git log --oneline | head', bash('git log --oneline -5')],
    ["sed -n '1,5p' notes.txt", bash("sed -n '1,5p' notes.txt")],
    ["sed -i 's/e/E/g' notes.txt", bash("sed -i 's/e/E/g' notes.txt")],
    ["awk '{ print $1 }' notes.txt", argv('awk', '{ print $1 }', 'notes.txt')],
    ["awk '/a|b/ || NR == 1' notes.txt", argv('awk', '/a|b/ || NR == 1', 'notes.txt')],
    ['tar -xzf a.tgz -C out', bash('tar -xzf a.tgz -C out')],
    ['make test', bash('make test')],
    ['python3 build.py', bash('python3 build.py')],
    ['cd src && npm test', bash('cd src && npm test')],
  ])('%s → allow', async (_name, call) => {
    expect(await decide(strict, call)).toBe('allow')
  })
  it.each<[string, Call]>([
    ['echo $((1+2))', bash('echo $((1+2))')],
    ['(( 3 > 2 )) && echo ok', bash('(( 3 > 2 )) && echo ok')],
    ['[[ "$a" == x ]]', bash('[[ "$a" == x ]] && echo ok')],
    ['perl script.pl', argv('perl', 'script.pl')],
    ['perl -Mstrict -w script.pl', argv('perl', '-Mstrict', '-w', 'script.pl')],
    ['python3 script.py', argv('python3', 'script.py')],
    ['python3 -m pytest -q', argv('python3', '-m', 'pytest', '-q')],
    ['node x.js', argv('node', 'x.js')],
    ['ruby -w x.rb', argv('ruby', '-w', 'x.rb')],
    ['rm -r --interactive=always v', bash('rm -r --interactive=always v')],
    ['git grep -n x', argv('git', 'grep', '-n', 'x')],
    ['sort -u notes.txt', argv('sort', '-u', 'notes.txt')],
  ])('under allow every call + deny rm -rf: %s → allow', async (_name, call) => {
    expect(await decide(open, call)).toBe('allow')
  })
  it('under a rule that allows every call, so does a program running code of its own when no deny or ask rule is there to dodge', async () => {
    const all = new Permissions({ root, policy: { rules: [{ tool: 'bash', decision: 'allow' }] } })
    expect(await decide(all, bash("python3 -c 'print(1)'"))).toBe('allow')
  })
})

describe('a command named by a path matches only an allow rule written with that path', () => {
  const allowEcho = new Permissions({ root, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands: ['echo'] }, decision: 'allow' }] } })
  const allowPath = new Permissions({ root, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands: ['./bin/echo'] }, decision: 'allow' }] } })
  it.each<[string, Call]>([
    ['./bin/echo ok', argv('./bin/echo', 'ok')],
    ['bin/echo ok', argv('bin/echo', 'ok')],
    ["sh -c 'bin/echo ok'", argv('sh', '-c', 'bin/echo ok')],
    [`${root}/bin/echo ok`, argv(`${root}/bin/echo`, 'ok')],
    ['./bin/env echo ok', bash('./bin/env echo ok')], // a wrapper named by a path is any program
    ['./cd x && echo ok', bash('./cd x && echo ok')], // so is a builtin's name
  ])('allow echo does not cover %s', async (_name, call) => {
    expect(await decide(allowEcho, call)).toBe('ask')
  })
  it('the bare name still covers a PATH lookup', async () => {
    expect(await decide(allowEcho, argv('echo', 'ok'))).toBe('allow')
  })
  it('an allow rule written with the path covers it, spelled with or without ./, and only from the root', async () => {
    expect(await decide(allowPath, argv('./bin/echo', 'ok'))).toBe('allow')
    expect(await decide(allowPath, argv('bin/echo', 'ok'))).toBe('allow')
    expect(await decide(allowPath, bash('bin/echo ok'))).toBe('allow')
    expect(await decide(allowPath, argv('echo', 'ok'))).toBe('ask')
    expect(await decide(allowPath, bash('cd src && bin/echo ok'))).toBe('ask')
    expect(await decide(allowPath, { cmd: 'bin/echo', args: ['ok'], opts: { cwd: 'src' } })).toBe('ask')
  })
  it('a deny rule still catches every spelling of the program', async () => {
    expect(await decide(open, argv('./rm', '-rf', 'v'))).toBe('deny')
    expect(await decide(open, argv(`${root}/bin/rm`, '-rf', 'v'))).toBe('deny')
  })
})

/** Run with `folder` first on the kit's own PATH (what the bash tool passes on). */
async function withPathFirst(folder: string, run: () => Promise<void>): Promise<void> {
  const saved = process.env.PATH
  process.env.PATH = `${folder}:${saved ?? ''}`
  try {
    await run()
  } finally {
    process.env.PATH = saved
  }
}

describe('a bare name that PATH finds inside the root is judged as that file', () => {
  const dir = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-path-in-root-')))
  const bin = path.join(dir, 'node_modules', '.bin')
  fs.mkdirSync(bin, { recursive: true })
  const policy = (commands: string[], decision: 'allow' | 'deny') => new Permissions({ root: dir, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands }, decision }] } })
  // As `npm run` starts the kit: the root's node_modules/.bin first on PATH.
  const withPath = (run: () => Promise<void>): Promise<void> => withPathFirst(bin, run)
  it('allow echo stops covering echo once node_modules/.bin/echo exists; deny and path rules still match', async () => {
    await withPath(async () => {
      const allowEcho = policy(['echo'], 'allow')
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('allow') // nothing there yet: PATH finds the system's echo
      fs.writeFileSync(path.join(bin, 'echo'), '#!/bin/sh\necho script-ran\n')
      fs.chmodSync(path.join(bin, 'echo'), 0o755)
      try {
        expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
        expect(await decide(allowEcho, argv('env', 'echo', 'hi'))).toBe('ask')
        expect(await decide(allowEcho, bash('echo hi'))).toBe('ask')
        expect(await decide(allowEcho, argv('/usr/bin/echo', 'hi'))).toBe('allow')
        expect(await decide(policy(['echo'], 'deny'), argv('echo', 'hi'))).toBe('deny')
        expect(await decide(policy(['node_modules/.bin/echo'], 'allow'), argv('echo', 'hi'))).toBe('allow')
      } finally {
        fs.rmSync(path.join(bin, 'echo'))
      }
    })
  })
})

describe('a PATH folder outside the root that leads into it, directly or through a link in it', () => {
  // The kit keeps what it learns of a PATH folder that only the host can change; these are the ones it must not keep.
  const executable = (file: string): void => {
    fs.writeFileSync(file, '#!/bin/sh\necho script-ran\n')
    fs.chmodSync(file, 0o755)
  }
  const withPath = withPathFirst
  /** Put a real folder holding an `echo` where `dir` (a link) was: what the agent can do in the root. */
  const programFolder = (dir: string): void => {
    fs.rmSync(dir)
    fs.mkdirSync(dir)
    executable(path.join(dir, 'echo'))
  }
  const setup = () => {
    const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-path-root-')))
    const host = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-path-host-')))
    const allowEcho = new Permissions({ root, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands: ['echo'] }, decision: 'allow' }] } })
    return { root, host, allowEcho }
  }

  it('a host folder linked to a folder of the root: judged by what the root holds at each call', async () => {
    const { root, host, allowEcho } = setup()
    fs.mkdirSync(path.join(root, 'tools'))
    fs.symlinkSync(path.join(root, 'tools'), path.join(host, 'bin'))
    await withPath(path.join(host, 'bin'), async () => {
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('allow') // nothing there: the system's echo
      executable(path.join(root, 'tools', 'echo'))
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
      // The agent can point the root's folder away (out of the root): then it is not the root's program any more.
      fs.rmSync(path.join(root, 'tools'), { recursive: true })
      fs.mkdirSync(path.join(host, 'elsewhere'))
      fs.symlinkSync(path.join(host, 'elsewhere'), path.join(root, 'tools'))
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('allow')
      programFolder(path.join(root, 'tools'))
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
    })
  })

  it('a host folder whose link passes through the root and out again: a folder the agent puts there is seen', async () => {
    const { root, host, allowEcho } = setup()
    // host/bin → root/hop → host/empty: it ends outside, but the root decides where it leads.
    fs.mkdirSync(path.join(host, 'empty'))
    fs.symlinkSync(path.join(host, 'empty'), path.join(root, 'hop'))
    fs.symlinkSync(path.join(root, 'hop'), path.join(host, 'bin'))
    await withPath(path.join(host, 'bin'), async () => {
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('allow')
      programFolder(path.join(root, 'hop'))
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
    })
  })

  it("a root folder on PATH that does not exist yet: the agent's folder is seen once made", async () => {
    const { root, allowEcho } = setup()
    await withPath(path.join(root, 'node_modules', '.bin'), async () => {
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('allow')
      fs.mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true })
      executable(path.join(root, 'node_modules', '.bin', 'echo'))
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
    })
  })

  it('a root folder whose name starts with two dots is the root\'s', async () => {
    const { root, allowEcho } = setup()
    fs.mkdirSync(path.join(root, '..cache', 'bin'), { recursive: true })
    executable(path.join(root, '..cache', 'bin', 'echo'))
    await withPath(path.join(root, '..cache', 'bin'), async () => {
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
      expect(await decide(new Permissions({ root, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands: ['..cache/bin/echo'] }, decision: 'allow' }] } }), argv('echo', 'hi'))).toBe('allow')
    })
  })

  it('a program in a host folder before the root\'s is the host\'s: a bare allow covers it', async () => {
    const { root, host, allowEcho } = setup()
    fs.mkdirSync(path.join(root, 'bin'))
    executable(path.join(root, 'bin', 'echo'))
    executable(path.join(host, 'echo'))
    await withPath(`${host}:${path.join(root, 'bin')}`, async () => {
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('allow')
      fs.rmSync(path.join(host, 'echo'))
      expect(await decide(allowEcho, argv('echo', 'hi'))).toBe('ask')
    })
  })
})

describe('allow git … covers git in the root only', () => {
  const allowGit = new Permissions({ root, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands: ['git status', 'ls'] }, decision: 'allow' }] } })
  it.each<[string, Call]>([
    ['git -C src status', argv('git', '-C', 'src', 'status')],
    ['git --git-dir=src/.git status', argv('git', '--git-dir=src/.git', 'status')],
    ['git --git-dir src/.git status', argv('git', '--git-dir', 'src/.git', 'status')],
    ['git --work-tree=src status', argv('git', '--work-tree=src', 'status')],
    ['cd src && git status', bash('cd src && git status')],
    ['pushd src; git status', bash('pushd src; git status')],
    ['GIT_DIR=src/.git git status', bash('GIT_DIR=src/.git git status')],
    ['env GIT_DIR=src/.git git status', argv('env', 'GIT_DIR=src/.git', 'git', 'status')],
    ['env -C src git status', argv('env', '-C', 'src', 'git', 'status')],
    ['GIT_CONFIG_GLOBAL=x git status', bash('GIT_CONFIG_GLOBAL=x git status')],
    ['git status in opts.cwd src', { cmd: 'git', args: ['status'], opts: { cwd: 'src' } }],
  ])('%s is not covered', async (_name, call) => {
    expect(await decide(allowGit, call)).toBe('ask')
  })
  it('git status in the root is', async () => {
    expect(await decide(allowGit, argv('git', 'status'))).toBe('allow')
    expect(await decide(allowGit, { cmd: 'git', args: ['status'], opts: { cwd: '.' } })).toBe('allow')
    expect(await decide(allowGit, bash('git status && ls'))).toBe('allow')
  })
})

describe('random nestings of wrappers around rm -rf v are never allowed', () => {
  const q = (words: readonly string[]): string => words.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ')
  type Wrap = (inner: string[]) => string[]
  const WRAPS: readonly Wrap[] = [
    (w) => ['timeout', '5', ...w],
    (w) => ['nice', '-n', '5', ...w],
    (w) => ['env', 'A=1', ...w],
    (w) => ['env', '-S', q(w)],
    (w) => ['setpriv', '--reuid=0', ...w],
    (w) => ['prlimit', '--nofile=100', ...w],
    (w) => ['stdbuf', '-oL', ...w],
    (w) => ['nohup', ...w],
    (w) => ['setsid', '-w', ...w],
    (w) => ['sudo', '-u', 'root', ...w],
    (w) => ['doas', ...w],
    (w) => ['chrt', '-o', '0', ...w],
    (w) => ['taskset', '-c', '0', ...w],
    (w) => ['ionice', '-c', '3', ...w],
    (w) => ['flock', '/tmp/l', ...w],
    (w) => ['time', '-p', ...w],
    (w) => ['xargs', ...w],
    (w) => ['sh', '-c', q(w)],
    (w) => ['bash', '-lc', q(w)],
    (w) => ['script', '-qc', q(w), '/dev/null'],
    (w) => ['su', '-c', q(w)],
    (w) => ['runuser', '-u', 'root', '--', ...w],
    (w) => ['eval', q(w)],
    (w) => ['trap', q(w), 'EXIT'],
    (w) => ['compgen', '-C', q(w), 'x'],
    (w) => ['mapfile', '-C', q([...w, ';:']), '-c', '1'],
    (w) => ['find', '.', '-exec', ...w, ';'],
    (w) => ['watch', '-n', '1', q(w)], // watch joins its words and hands them to sh -c
    (w) => ['unshare', '-r', ...w],
    (w) => ['nsenter', '-t', '1', '-m', ...w],
    (w) => ['chroot', '/', ...w],
    (w) => ['busybox', ...w],
    (w) => ['fakeroot', ...w],
    (w) => ['pkexec', ...w],
    (w) => ['gdb', '--args', ...w],
    (w) => ['strace', '-f', ...w],
    (w) => ['valgrind', ...w],
    (w) => ['tar', '-xf', 'a.tar', `--to-command=${q(w)}`],
    (w) => ['git', 'rebase', '-x', q(w), 'main'],
    (w) => ['make', `CC=${q(w)}`],
    (w) => ['ssh', 'host', q(w)],
    (w) => ['./bin/timeout', '5', ...w],
  ]
  const policies = [
    new Permissions({ root, policy: { rules: [{ tool: 'bash', decision: 'allow' }, { tool: 'bash', match: { commands: ['rm'] }, decision: 'deny' }] } }),
    new Permissions({ root, policy: { default: 'ask', rules: [{ tool: 'bash', match: { commands: ['ls', 'echo', 'timeout', 'env'] }, decision: 'allow' }, { tool: 'bash', match: { commands: ['rm'] }, decision: 'deny' }] } }),
  ]
  it('under allow * + deny rm, and under an allow-list + deny rm', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(WRAPS.length - 1), { minLength: 1, maxLength: 4 }), fc.boolean(), async (picks, viaShell) => {
        let words = ['rm', '-rf', 'v']
        for (const pick of picks) words = WRAPS[pick]!(words)
        const call = viaShell ? bash(q(words)) : argv(...words)
        for (const permissions of policies) expect(await decide(permissions, call)).not.toBe('allow')
      }),
      { numRuns: 400 },
    )
  })
})

// Shows the table above is about real bypasses: each spelling, run by the real programs, removes `v`.
describe('the review spellings really run rm -rf v (real processes)', () => {
  const tools = ['setpriv', 'prlimit', 'gdb', 'script', 'tar', 'bash', 'perl', 'python3', 'capsh', 'sg']
  const missing = tools.filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
      return false
    } catch {
      return true
    }
  })
  it.each([...REVIEW, ...REVIEW2].map((call) => [[call.cmd, ...call.args].join(' '), call] as const))('%s', (_name, call) => {
    if (missing.includes(call.cmd)) return // not installed here: nothing to show (CI installs them)
    const dir = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-bypass-')))
    fs.mkdirSync(path.join(dir, 'v'))
    fs.writeFileSync(path.join(dir, 'v', 'f'), 'x')
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'line\n')
    fs.chmodSync(path.join(dir, 'v', 'f'), 0o444) // write-protected: rm -r without -f would prompt, not remove
    try {
      execFileSync(call.cmd, call.args, { cwd: dir, stdio: 'ignore', timeout: 60_000 })
    } catch {
      // gdb and script exit non-zero in some setups; what matters is whether `v` is gone.
    }
    expect(fs.existsSync(path.join(dir, 'v'))).toBe(false)
  }, 90_000)
})
