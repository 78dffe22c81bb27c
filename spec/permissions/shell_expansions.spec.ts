// Security review F2 (issue 15): a `bash` command-prefix rule must not be
// dodged by shell syntax the splitter took as literal text ($'…', a
// backslash-newline, braces, globs), by a word computed at run time, or by
// spelling an option cluster another way (`rm -fr`, `rm -r -f`, `rm -Rf`,
// `rm --recursive --force`). Through the public barrel, with the copyable
// policy in examples/policy.json; the real-bash block proves every script
// tested here really runs `git push` (a fake `git` on PATH prints its argv).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CommandPrefix, PermissionPolicy, loadPermissionPolicy, type PermissionDecision } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { BASH_ROLES } from '../support/builtin_roles.js'

let policy: PermissionPolicy
const ASK_PUBLISH = 3
const DENY_DESTRUCTIVE = 4

beforeAll(async () => {
  policy = await loadPermissionPolicy(path.resolve('examples/policy.json'))
})

const paths = { resolve: async () => undefined, exists: async () => false }

async function decide(p: PermissionPolicy, cmd: string, args: string[]): Promise<{ decision: PermissionDecision; rule: number | undefined }> {
  const verdict = await p.decide({ toolName: 'bash', roles: BASH_ROLES, callId: 'c', args: { cmd, args } }, paths)
  return { decision: verdict.decision, rule: verdict.rule?.index }
}

/**
 * Scripts that run `git push` in real bash (checked below) while spelling it
 * another way, and what the policy now says: `ask`, from the `git push`
 * rule, when the word can only be `push` or a word of its shape; `deny`,
 * from the `git clean` / `git reset --hard` rule, when it could be any word
 * (a substitution, or a computed command word): fail closed.
 */
const PUSH_SCRIPTS: readonly [string, PermissionDecision, number][] = [
  ["git $'push'", 'ask', ASK_PUBLISH], // ANSI-C quoting, decoded
  ["git $'\\x70ush'", 'ask', ASK_PUBLISH], // ANSI-C escape
  ["git $'\\160ush'", 'ask', ASK_PUBLISH], // octal escape
  ['git p\\\nush', 'ask', ASK_PUBLISH], // backslash-newline is a line continuation
  ['git "p\\\nush"', 'ask', ASK_PUBLISH], // also inside double quotes
  ['git {push,}', 'ask', ASK_PUBLISH], // brace expansion: push, or nothing
  ['git {pus,xx}h', 'ask', ASK_PUBLISH],
  ['git pus[h]', 'ask', ASK_PUBLISH], // pathname expansion: a file named `push` in the working directory
  ['git pus?', 'ask', ASK_PUBLISH],
  ['git pu*', 'ask', ASK_PUBLISH],
  ['git "$(echo push)"', 'deny', DENY_DESTRUCTIVE], // a substitution could be `clean` as well as `push`
  ['git `echo push`', 'deny', DENY_DESTRUCTIVE],
  ['git ${X:-push}', 'deny', DENY_DESTRUCTIVE], // parameter expansion with a default
  ['X=push; git $X', 'deny', DENY_DESTRUCTIVE],
  ['{git,} push', 'deny', DENY_DESTRUCTIVE], // brace expansion in the command word: it could be anything
  ['echo "git push" | sh', 'deny', DENY_DESTRUCTIVE], // a shell that reads its script from standard input
  ['bash <<< "git push"', 'deny', DENY_DESTRUCTIVE],
  ['echo push | xargs git', 'deny', DENY_DESTRUCTIVE], // xargs appends its input: any words
  ['echo push | xargs -I{} git {}', 'deny', DENY_DESTRUCTIVE],
  ['find push -maxdepth 0 -exec git {} \\;', 'ask', ASK_PUBLISH], // `{}` is a path under a starting point: push*
]

describe('shell expansions cannot dodge a prefix rule (examples/policy.json)', () => {
  it.each(PUSH_SCRIPTS)('bash -c %j → %s (rules[%i])', async (script, decision, rule) => {
    expect(await decide(policy, 'bash', ['-c', script])).toEqual({ decision, rule })
  })

  it.each(PUSH_SCRIPTS)('sh -c "cd x && …" around %j → %s (rules[%i])', async (script, decision, rule) => {
    expect(await decide(policy, 'sh', ['-c', `cd x && ${script}`])).toEqual({ decision, rule })
  })

  it.each([
    ["rm $'-rf' x", 'ANSI-C quoting'],
    ['rm -r\\\nf x', 'backslash-newline inside the cluster'],
    ['rm "$OPTS" x', 'a computed word could be -rf'],
    ['rm $OPTS', 'unquoted: could be several words'],
    ['rm -f *', 'a glob that can expand to a file named -r'],
    ['{rm,} -rf x', 'brace expansion in the command word'],
    ['find . -name "*.tmp" | xargs rm -f', 'the input could be -r'],
  ])('bash -c %j is denied like `rm -rf` (%s)', async (script) => {
    expect(await decide(policy, 'bash', ['-c', script])).toEqual({ decision: 'deny', rule: DENY_DESTRUCTIVE })
  })
})

describe('option spellings cannot dodge a prefix rule', () => {
  it.each([
    ['rm', ['-fr', 'x']],
    ['rm', ['-r', '-f', 'x']],
    ['rm', ['-f', '-r', 'x']],
    ['rm', ['-Rf', 'x']],
    ['rm', ['-R', '-f', 'x']],
    ['rm', ['--recursive', '--force', 'x']],
    ['rm', ['--force', '--recursive', 'x']],
    ['rm', ['-r', '--force', 'x']],
    ['rm', ['--recursive', '-f', 'x']],
    ['rm', ['--rec', '--forc', 'x']], // GNU getopt takes unambiguous abbreviations
    ['rm', ['-v', '-rfi', 'x']],
    ['rm', ['x', '-rf']], // GNU rm permutes: options may follow operands
    ['rm', ['x', '-r', 'y', '-f']],
    ['bash', ['-c', 'rm -fr x']],
    ['bash', ['-c', 'rm -r -f x']],
    ['bash', ['-c', 'rm -Rf x']],
    ['bash', ['-c', 'rm --recursive --force x']],
    ['sudo', ['rm', '-fr', 'x']],
    ['git', ['clean', '-fdx']],
    ['git', ['reset', 'HEAD~1', '--hard']], // the option after an operand
    ['git', ['-c', 'help.autocorrect=immediate', 'pus']], // git runs the subcommand a misspelling is closest to
  ])('%s %j is denied', async (cmd, args) => {
    expect(await decide(policy, cmd, args)).toEqual({ decision: 'deny', rule: DENY_DESTRUCTIVE })
  })

  it.each([
    ['yarn', ['npm', 'publish']],
    ['bash', ['-c', 'yarn npm publish --access public']],
    ['pnpm', ['publish']],
    ['yarn', ['publish']],
    ['npm', ['publish']],
    ['npm', ['publ']], // npm runs any unambiguous abbreviation of a subcommand
    ['npm', ['--registry', 'x', 'pu', '--dry-run']],
  ])('%s %j asks (publishing)', async (cmd, args) => {
    expect(await decide(policy, cmd, args)).toEqual({ decision: 'ask', rule: ASK_PUBLISH })
  })

  it('a short cluster in a prefix is a set of letters; per-command synonyms cover -R and the long options of rm', () => {
    const rf = new CommandPrefix('rm -rf')
    for (const argv of [['rm', '-fr'], ['rm', '-r', '-f'], ['rm', '-Rf'], ['rm', '--recursive', '--force'], ['/bin/RM', '-f', 'x', '-R']]) expect(rf.matches(argv)).toBe(true)
    for (const argv of [['rm', '-r', 'x'], ['rm', '-f', 'x'], ['rm', '--', '-rf'], ['rm', '-i', 'x'], ['rm', '--recursive', 'x']]) expect(rf.matches(argv)).toBe(false)
    const pushForce = new CommandPrefix('git push --force')
    expect(pushForce.matches(['git', 'push', '-f'])).toBe(true)
    expect(pushForce.matches(['git', 'push', 'origin', 'main', '--force'])).toBe(true)
    expect(pushForce.matches(['git', 'push', 'origin'])).toBe(false)
  })
})

describe('allow rules are not widened, and deny still wins', () => {
  const rules = new PermissionPolicy({
    default: 'ask',
    rules: [
      { tool: 'bash', match: { commands: ['rm -f', 'npm test', 'git status', 'ls *.ts'] }, decision: 'allow' },
      { tool: 'bash', match: { commands: ['rm -rf'] }, decision: 'deny' },
    ],
  })

  it.each<[string, string[], PermissionDecision, number | undefined]>([
    ['rm', ['-f', 'x'], 'allow', 0],
    ['rm', ['-f', '-r', 'x'], 'deny', 1], // literally starts with `rm -f`, but it is `rm -rf`
    ['rm', ['-rf', 'x'], 'deny', 1],
    ['rm', ['-fr', 'x'], 'deny', 1],
    ['npm', ['test'], 'allow', 0],
    ['bash', ['-c', 'npm "$T"'], 'ask', undefined], // a computed word grants no allow rule
    ['bash', ['-c', 'npm t?st'], 'ask', undefined],
    ['bash', ['-c', 'npm {test,publish}'], 'ask', undefined],
    // Decoded exactly (it is `npm test`), but a script with a `$` is not plain: no allow rule vouches for it.
    ['bash', ['-c', "npm $'test'"], 'ask', undefined],
    ['bash', ['-c', 'git status'], 'allow', 0],
    ['bash', ['-c', 'git "$(echo status)"'], 'ask', undefined],
    ['bash', ['-c', 'ls *.ts'], 'allow', 0], // the text the rule wrote
    ['bash', ['-c', 'ls *'], 'ask', undefined],
  ])('%s %j → %s', async (cmd, args, decision, rule) => {
    expect(await decide(rules, cmd, args)).toEqual({ decision, rule })
  })
})

describe('ordinary commands keep their decisions (examples/policy.json)', () => {
  it.each<[string, string[]]>([
    ['bash', ['-c', 'npm test']],
    ['bash', ['-c', 'git status && git diff --stat']],
    ['bash', ['-c', 'ls -la src/*.ts']], // a glob no rule's prefix reaches
    ['bash', ['-c', 'git add src/*.ts && git commit -m "$(cat msg.txt)"']],
    ['bash', ['-c', 'echo $HOME; cat {a,b}.txt']],
    ['bash', ['-c', 'git log --format="%h $USER" -5']],
    ['bash', ['-c', '[ -f package.json ] && npm test']],
    ['bash', ['-c', '{ npm run build; npm test; } 2>&1 | tail -5']],
    ['bash', ['-c', 'for f in src/*.ts; do wc -l "$f"; done']],
    ['bash', ['-c', 'cd "$DIR" && git status']],
    ['bash', ['-c', 'rm -f build/*.o']], // cannot expand to an option: it starts with build/
    ['bash', ['-c', 'rm -f -- *.o "$TMP"']], // after `--` nothing is an option
    ['bash', ['-c', 'rm -r build']],
    ['bash', ['-c', 'rm -f x']],
    ['bash', ['-c', 'find . -name "*.tmp" -exec rm {} \\;']],
    ['bash', ['-c', 'find . -name "*.tmp" -exec rm -f {} +']], // `{}` starts with `./`: never an option
    ['bash', ['-c', 'find . -name "*.tmp" -print0 | xargs -0 rm -f --']],
    ['bash', ['-c', 'git ls-files | xargs wc -l']],
    ['git', ['commit', '-m', 'push']],
    ['git', ['log', '--grep', 'push']],
    ['npm', ['run', 'publish-docs']],
    ['npm', ['pack']],
    ['npm', ['t']],
    ['bash', ['scripts/build.sh']], // a script file is not read (see "What rules cannot see" in docs/permissions.md)
    ['bash', ['-c', 'bash -e scripts/build.sh']],
  ])('%s %j is still allowed', async (cmd, args) => {
    expect(await decide(policy, cmd, args)).toEqual({ decision: 'allow', rule: 2 })
  })
})

describe('the scripts really run `git push` (real bash, a fake git on PATH)', () => {
  const bashAvailable = fs.existsSync('/bin/bash') || fs.existsSync('/usr/bin/bash')

  it.runIf(bashAvailable).each(PUSH_SCRIPTS.map(([script]) => script))('bash -c %j', (script) => {
    const dir = trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-f2-'))
    const bin = path.join(dir, 'bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'git'), '#!/bin/sh\necho "RAN: git $*"\n', { mode: 0o755 })
    // A file named `push` lets the pathname expansions find it, as a model could arrange with `touch push`.
    fs.writeFileSync(path.join(dir, 'push'), '')
    const out = execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' })
    // `git {pus,xx}h` runs `git push xxh`: still `git push`.
    expect(out).toMatch(/^RAN: git push( \S+)?\n$/)
  })
})
