/**
 * Programs that are not wrappers but can be told, in their arguments, to
 * run a command (`tar --to-command`, `git rebase --exec`, `ssh -o
 * ProxyCommand`, `make CC='…'`) or code of their own (`python3 -c`,
 * `sed 's/x/y/e'`, `awk '{ system(…) }'`, `vim -c '!…'`): for each, the
 * commands it is told to run, or why what it runs cannot be read as
 * commands. Part of the wrapper table of `wrappers.ts`.
 *
 * A program reading its own code from a file (`python3 build.py`, `make`
 * with its Makefile, `sed -f script.sed`) is not here: rules read the
 * command line, not files (docs/permissions.md, "What rules cannot see").
 *
 * @module
 */
import type { Payload } from './command_runners.js'
import { splitScript } from './shell_words.js'
import type { Opaque } from './wrapper_options.js'

type Unwrapper = (rest: readonly string[]) => Payload

const opaque = (reason: string): Opaque => ({ opaque: reason })

/** The value of `--name=V`, `--name V`, `-x V` or `-xV` among `rest`, for each spelling in `names`; every occurrence. */
function valuesOf(rest: readonly string[], names: readonly string[]): string[] {
  const values: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') break
    for (const name of names) {
      if (word === name) values.push(rest[i + 1] ?? '')
      else if (name.startsWith('--') && word.startsWith(`${name}=`)) values.push(word.slice(name.length + 1))
      else if (!name.startsWith('--') && name.length === 2 && word.startsWith(name) && word.length > 2) values.push(word.slice(2))
    }
  }
  return values
}

/**
 * Modules that run code or commands given in their arguments or read from
 * standard input (`python3 -m timeit -s 'import os; …'`, `-m pdb -c '!…'`,
 * `-m code`, `-m cProfile -m …`): `python -m` one of them is opaque.
 */
export const PYTHON_CODE_MODULES: ReadonlySet<string> = new Set(['timeit', 'cProfile', 'profile', 'trace', 'pdb', 'code', 'runpy', 'idlelib', 'idle', 'asyncio', 'IPython', 'ipython', 'doctest'])

/** How an interpreter reads its options (see {@link interpreter}). */
interface InterpreterSpec {
  /** Short options that run code given on the command line (`-e`, `-c`). */
  readonly codeLetters: string
  /** Long options that do. */
  readonly codeLongs?: readonly string[]
  /** Short options that take the rest of the word, or the next word when none is left. */
  readonly valueLetters?: string
  /** Long options that take the next word. */
  readonly valueLongs?: readonly string[]
  /** Options with which no program is read. */
  readonly noProgram?: readonly string[]
  /** Short options whose optional value is attached and matches the pattern; the cluster goes on after it (`perl -l0e`, `-Cae`). */
  readonly attached?: Readonly<Record<string, RegExp>>
  /** `-m MODULE` runs a module; these ones run code given to them. */
  readonly codeModules?: ReadonlySet<string>
  /** Checks a value of `-M`/`-m` (perl pastes it into `use …;`). */
  readonly moduleValue?: (value: string) => boolean
}

/**
 * An interpreter: opaque when it is given code on the command line
 * (a code letter anywhere in a short cluster, as the program reads the
 * cluster: `perl -le`, `ruby -ne`; a code long option; a module that runs
 * code given to it), or reads its program from standard input (`-`, or no
 * program operand and no option that makes it do something else).
 */
function interpreter(name: string, spec: InterpreterSpec): Unwrapper {
  const code = `\`${name}\` runs code given on the command line, which can start any program`
  const stdin = `\`${name}\` reads its program from standard input, which cannot be checked before it runs`
  const { codeLetters, codeLongs = [], valueLetters = '', valueLongs = [], noProgram = [], attached = {}, codeModules, moduleValue } = spec
  const module = (value: string): Payload => {
    if (codeModules?.has(value.split('.', 1)[0]!)) return opaque(`\`${name} -m ${value}\` runs code given in its arguments or on standard input, which can start any program`)
    return []
  }
  return (rest) => {
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!
      if (word === '-') return opaque(stdin)
      if (word === '--') return i + 1 < rest.length ? (rest[i + 1] === '-' ? opaque(stdin) : []) : opaque(stdin)
      if (!word.startsWith('-')) return []
      if (word.startsWith('--')) {
        const long = word.split('=', 1)[0]!
        if (codeLongs.includes(long)) return opaque(code)
        if (noProgram.includes(long)) return []
        if (valueLongs.includes(long) && !word.includes('=') && !rest[i + 1]?.startsWith('-')) i++
        continue
      }
      for (let k = 1; k < word.length; k++) {
        const letter = word[k]!
        if (codeLetters.includes(letter)) return opaque(code)
        const pattern = attached[letter]
        if (pattern !== undefined) {
          k += pattern.exec(word.slice(k + 1))?.[0].length ?? 0
          continue
        }
        if (letter === 'm' && codeModules !== undefined) return module(k + 1 < word.length ? word.slice(k + 1) : rest[i + 1] ?? '')
        if (noProgram.includes(`-${letter}`)) return []
        if (valueLetters.includes(letter)) {
          const value = k + 1 < word.length ? word.slice(k + 1) : rest[i + 1]?.startsWith('-') ? '' : rest[i + 1] ?? ''
          if ((letter === 'M' || letter === 'm') && moduleValue !== undefined && !moduleValue(value)) return opaque(code)
          // A value in the next word; never one that looks like an option (perl's `-pi -e` has none).
          if (k === word.length - 1 && !rest[i + 1]?.startsWith('-')) i++
          break
        }
      }
    }
    return opaque(stdin)
  }
}

/** Where a sed script can run a command: the `e` command, or the `e` flag of `s`. Unknown syntax counts as one. */
export function sedExecutes(script: string): boolean {
  let i = 0
  const n = script.length
  const skipTo = (chars: string): void => {
    while (i < n && !chars.includes(script[i]!)) i++
  }
  /** Past a delimited part (`/re/`, `s/a/b/`): honours backslashes; false when unclosed. */
  const delimited = (delimiter: string): boolean => {
    while (i < n && script[i] !== delimiter) i += script[i] === '\\' ? 2 : 1
    if (i >= n) return false
    i++
    return true
  }
  while (i < n) {
    const ch = script[i]!
    if (' \t\n;{}!'.includes(ch)) {
      i++
      continue
    }
    if (ch === '#') {
      skipTo('\n')
      continue
    }
    // An address: numbers, `$`, `/re/`, `\cREc`, with `,` `~` `+` between, and flags I/M after a regex.
    if (/[0-9$,~+]/.test(ch)) {
      i++
      continue
    }
    if (ch === '/' || ch === '\\') {
      const delimiter = ch === '/' ? '/' : script[i + 1]
      i += ch === '/' ? 1 : 2
      if (delimiter === undefined || !delimited(delimiter)) return true
      while (i < n && (script[i] === 'I' || script[i] === 'M')) i++
      continue
    }
    i++
    switch (ch) {
      case 'e':
        return true
      case 's': {
        const delimiter = script[i++]
        if (delimiter === undefined || delimiter === '\n' || delimiter === '\\' || !delimited(delimiter) || !delimited(delimiter)) return true
        const flags = /^[a-zA-Z0-9]*/.exec(script.slice(i))![0]
        if (flags.includes('e')) return true
        i += flags.length
        if (flags.includes('w')) skipTo('\n')
        continue
      }
      case 'y': {
        const delimiter = script[i++]
        if (delimiter === undefined || !delimited(delimiter) || !delimited(delimiter)) return true
        continue
      }
      case 'a':
      case 'i':
      case 'c':
      case 'r':
      case 'R':
      case 'w':
      case 'W':
      case ':':
        skipTo('\n')
        continue
      case 'b':
      case 't':
      case 'T':
        skipTo(';\n}')
        continue
      default:
        if ('pdnNgGhHxlLqQzFPD='.includes(ch)) continue
        return true
    }
  }
  return false
}

/** `sed`: the `e` command and the `s///e` flag run commands, unless `--sandbox` forbids them. */
function sed(rest: readonly string[]): Payload {
  if (rest.includes('--sandbox')) return []
  const scripts: string[] = []
  const operands: string[] = []
  let fromFile = false
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') {
      operands.push(...rest.slice(i + 1))
      break
    }
    if (word.startsWith('--')) {
      if (word.startsWith('--expression=')) scripts.push(word.slice(13))
      else if (word === '--expression') scripts.push(rest[++i] ?? '')
      else if (word === '--file' || word.startsWith('--file=')) fromFile = true
      continue
    }
    if (!word.startsWith('-') || word === '-') {
      operands.push(word)
      continue
    }
    // A cluster: `i` takes the rest as a suffix, `l`, `e` and `f` the rest or the next word.
    for (let k = 1; k < word.length; k++) {
      const letter = word[k]!
      if (!'ilef'.includes(letter)) continue
      const value = letter === 'i' ? '' : k + 1 < word.length ? word.slice(k + 1) : rest[++i] ?? ''
      if (letter === 'e') scripts.push(value)
      if (letter === 'f') fromFile = true
      break
    }
  }
  if (scripts.length === 0 && !fromFile && operands[0] !== undefined) scripts.push(operands[0])
  return scripts.some(sedExecutes) ? opaque('`sed` runs a command with its `e` command or the `e` flag of `s`') : []
}

/** The operands of `rest`: words not starting with `-` that are not the value of an option matching `takesNext`. */
function operandsOf(rest: readonly string[], takesNext: RegExp): string[] {
  const operands: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') return [...operands, ...rest.slice(i + 1)]
    if (word.startsWith('-') && word !== '-') {
      if (takesNext.test(word)) i++
      continue
    }
    operands.push(word)
  }
  return operands
}

/** awk: `system()`, a pipe to or from a command (`|`, `|&`), or a loaded extension run commands. */
function awk(rest: readonly string[]): Payload {
  const programs = valuesOf(rest, ['-e', '--source'])
  if (valuesOf(rest, ['-l', '--load']).length > 0) return opaque('`awk -l` loads an extension, which can run anything')
  const files = valuesOf(rest, ['-f', '--file', '-E', '--exec', '-i', '--include'])
  if (files.some((file) => file === '-' || file.startsWith('/dev/') || file.startsWith('/proc/'))) return opaque('`awk` reads its program from standard input or a descriptor')
  const fromFile = files.length > 0
  if (programs.length === 0 && !fromFile) {
    const operands = operandsOf(rest, /^(?:-[FvfeEilW]|--(?:field-separator|assign|file|source|exec|include|load))$/)
    if (operands[0] !== undefined) programs.push(operands[0])
  }
  for (const program of programs) {
    // Regular expression literals may hold `|` (an alternation), and `||` is a logical or.
    const code = program.replace(/\/(?:\\.|[^/\n])*\//g, '//').replace(/\|\|/g, '')
    if (/\bsystem\s*\(|\||@load/.test(code)) return opaque('`awk` runs a command (`system()` or a pipe to or from one)')
  }
  return []
}

/** make: `--eval` text and `VAR=value` operands reach the recipes, which run commands; a Makefile from standard input cannot be read. */
function make(rest: readonly string[]): Payload {
  if (valuesOf(rest, ['-E', '--eval']).length > 0) return opaque('`make --eval` adds rules whose recipes run commands')
  if (valuesOf(rest, ['-f', '--file', '--makefile']).some((file) => file === '-' || file.startsWith('/dev/') || file.startsWith('/proc/'))) {
    return opaque('`make` reads its Makefile from standard input or a descriptor')
  }
  const commands: string[][] = []
  for (const word of operandsOf(rest, /^-[CfIoW]$|^--(?:directory|file|makefile|include-dir|old-file|what-if|new-file|assume-old|assume-new)$/)) {
    const assignment = /^([A-Za-z_.][A-Za-z0-9_.]*)\s*[:+?!]*=(.*)$/s.exec(word)
    if (assignment === null) continue
    if (/^(?:SHELL|MAKESHELL|\.SHELLFLAGS|MAKEFLAGS|MFLAGS)$/.test(assignment[1]!)) return opaque(`\`make ${assignment[1]}=…\` changes how every recipe is run`)
    // `CC='…'`, `RM='…'`: a variable recipes expand into commands.
    commands.push(...splitScript(assignment[2]!))
  }
  return commands
}

/** tar: options that run a command (`--to-command`, `-I`…), in every spelling tar takes, including old-style `tar xIf PROG`. */
function tar(rest: readonly string[]): Payload {
  const commands: string[][] = []
  const scriptFile = () => opaque('`tar` runs a script file it is given (--info-script, --new-volume-script, -F)')
  const commandLongs = ['--to-command', '--use-compress-program', '--rsh-command', '--rmt-command']
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') break
    if (word.startsWith('--')) {
      const [long, value] = word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined]
      // getopt_long takes abbreviations: `--to-c` is `--to-command`.
      const abbreviates = (option: string): boolean => long.length > 3 && option.startsWith(long)
      if (commandLongs.some(abbreviates)) commands.push(...splitScript(value ?? rest[++i] ?? ''))
      else if (['--info-script', '--new-volume-script'].some(abbreviates)) return scriptFile()
      else if (abbreviates('--checkpoint-action')) {
        const action = value ?? rest[++i] ?? ''
        if (/^exec=/.test(action)) commands.push(...splitScript(action.slice(5)))
      }
      continue
    }
    // Short clusters (`-xIzstd`, `-xI zstd`) and the old style of the first word (`xIf zstd file.tar`): values in order.
    const oldStyle = i === 0 && !word.startsWith('-')
    if (!word.startsWith('-') && !oldStyle) continue
    const letters = oldStyle ? word : word.slice(1)
    let next = i + 1
    for (let k = 0; k < letters.length; k++) {
      const letter = letters[k]!
      if (!'bCfFgHIKLNTVX'.includes(letter)) continue
      const attached = oldStyle ? '' : letters.slice(k + 1)
      const value = attached !== '' ? attached : rest[next++] ?? ''
      if (letter === 'I') commands.push(...splitScript(value))
      if (letter === 'F') return scriptFile()
      if (attached !== '') break
    }
    i = next - 1
  }
  return commands
}

/** git: configuration and options that name commands to run. */
function git(rest: readonly string[]): Payload {
  const commands: string[][] = []
  let i = 0
  for (; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '-c') {
      const config = rest[++i] ?? ''
      const key = config.split('=', 1)[0]!.toLowerCase()
      if (/^(?:core\.hookspath|include\.|includeif\.)/.test(key)) return opaque(`\`git -c ${key}\` makes git run hooks or read configuration from elsewhere`)
      // A value may be a command (`core.pager`, `core.sshCommand`, `diff.x.textconv`, `credential.helper=!…`).
      commands.push(...splitScript(config.slice(config.indexOf('=') + 1).replace(/^!/, '')))
    } else if (word === '--config-env' || word.startsWith('--config-env=')) {
      return opaque('`git --config-env` takes a configuration value, possibly a command, from the environment')
    } else if (word.startsWith('--exec-path=')) {
      return opaque('`git --exec-path=DIR` runs its subcommands from another directory')
    } else if (['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--list-cmds', '--attr-source'].includes(word)) i++
    else if (!word.startsWith('-')) break
  }
  const sub = rest[i]
  const after = rest.slice(i + 1)
  const scripts = (...names: string[]): void => {
    for (const value of valuesOf(after, names)) commands.push(...splitScript(value))
  }
  scripts('--upload-pack', '--receive-pack')
  if (sub === 'clone') scripts('-u')
  if (sub === 'archive') scripts('--exec')
  if (sub === 'rebase') scripts('-x', '--exec')
  if (sub === 'difftool' || sub === 'mergetool') scripts('-x', '--extcmd', '--tool-cmd')
  if (sub === 'filter-branch') scripts('--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter')
  if (sub === 'submodule' && after.includes('foreach')) commands.push(...splitScript(after.slice(after.indexOf('foreach') + 1).filter((word) => !word.startsWith('-')).join(' ')))
  // `git grep -O[PAGER]` opens the matching files with PAGER; `git send-email` runs the commands and programs these options name.
  if (sub === 'grep') scripts('-O', '--open-files-in-pager')
  if (sub === 'send-email' && after.some((word) => /^--(?:to-cmd|cc-cmd|header-cmd|sendmail-cmd|smtp-server)\b/.test(word))) {
    return opaque('`git send-email` runs the commands or program its --to-cmd/--cc-cmd/--header-cmd/--sendmail-cmd/--smtp-server options name')
  }
  if (sub === 'bisect' && after[0] === 'run' && after.length > 1) commands.push(after.slice(1))
  return commands
}

/** ssh (and scp/sftp's `-S`/`-o`): the remote command, and options that run a local one. */
function ssh(program: string): Unwrapper {
  return (rest) => {
    const commands: string[][] = []
    for (const option of valuesOf(rest, ['-o'])) {
      const [key, ...value] = option.split(/[=\s]+/)
      if (/^(?:proxycommand|localcommand|knownhostscommand|remotecommand)$/i.test(key ?? '')) commands.push(...splitScript(value.join(' ')))
      if (/^(?:match|include)$/i.test(key ?? '')) return opaque(`\`${program} -o ${key}\` can run commands the kit does not read`)
    }
    if (valuesOf(rest, ['-F']).length > 0) return opaque(`\`${program} -F\` reads a configuration file, which can run commands`)
    if (program !== 'ssh') {
      for (const value of valuesOf(rest, ['-S'])) commands.push(...splitScript(value))
      return commands
    }
    // ssh [opts] HOST [opts] [COMMAND…]: options may follow the host; the command, joined, is run by the remote shell.
    let operands = 0
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!
      if (word.startsWith('-') && word !== '-' && word !== '--') {
        if (/^-[A-Za-z0-9]*[BbcDEeFIiJLlmOopQRSWw]$/.test(word)) i++
        continue
      }
      if (word === '--') continue
      if (++operands === 2) {
        commands.push(...splitScript(rest.slice(i).join(' ')))
        break
      }
    }
    return commands
  }
}

/** rsync: `-e`/`--rsh` runs a command (in a cluster too: `-avze 'ssh -p 2'`), `--rsync-path` a remote one. */
function rsync(rest: readonly string[]): Payload {
  const commands: string[][] = []
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') break
    let value: string | undefined
    if (word === '--rsh' || word === '--rsync-path') value = rest[++i]
    else if (word.startsWith('--rsh=') || word.startsWith('--rsync-path=')) value = word.slice(word.indexOf('=') + 1)
    else if (/^-[A-Za-z]*e/.test(word)) {
      const attached = word.slice(word.indexOf('e') + 1)
      value = attached !== '' ? attached : rest[++i]
    }
    if (value !== undefined) commands.push(...splitScript(value))
  }
  return commands
}

/** Editors and pagers run their own commands (`vim -c '!…'`, a `:!` typed or piped in, `less +!…`). */
const EDITOR = (name: string) => () => opaque(`\`${name}\` runs its own commands (options, start-up files or standard input), and they can start any program`)

/** The programs of this module, by name (versioned names such as `python3.12` are looked up without the version). */
export const CODE_RUNNERS: ReadonlyMap<string, Unwrapper> = new Map<string, Unwrapper>([
  ['python', interpreter('python', { codeLetters: 'c', valueLetters: 'WXQ', valueLongs: ['--check-hash-based-pycs'], noProgram: ['-V', '--version', '-h', '--help', '--help-env', '--help-xoptions', '--help-all'], codeModules: PYTHON_CODE_MODULES })],
  ['pypy', interpreter('pypy', { codeLetters: 'c', valueLetters: 'WXQ', noProgram: ['-V', '--version', '-h', '--help'], codeModules: PYTHON_CODE_MODULES })],
  ['node', interpreter('node', { codeLetters: 'epi', codeLongs: ['--eval', '--print', '--interactive'], valueLetters: 'rC', valueLongs: ['--require', '--import', '--loader', '--experimental-loader', '--conditions', '--title', '--input-type', '--test-reporter', '--test-reporter-destination', '--test-name-pattern', '--test-skip-pattern', '--watch-path', '--run'], noProgram: ['--test', '--run', '-v', '--version', '-h', '--help', '--v8-options', '-c', '--check'] })],
  ['nodejs', (rest) => CODE_RUNNERS.get('node')!(rest)],
  // perl reads `-l`, `-0` and `-C` values from the cluster and goes on (`-le`, `-CSAe`); `-M'x;system …'` is pasted into `use x;system …;`.
  ['perl', interpreter('perl', {
    codeLetters: 'eE',
    valueLetters: 'ImM',
    noProgram: ['-v', '-V', '-h', '--help', '--version'],
    attached: { l: /^[0-7]*/, '0': /^(?:x[0-9a-fA-F]*|[0-7]*)/, C: /^(?:[0-9]+|[IOEioDSAaL]*)/, F: /^.*/, d: /^.*/, D: /^.*/, i: /^.*/, x: /^.*/ },
    moduleValue: (value) => /^-?[A-Za-z_][\w:]*(?:=[\w:,.-]*)?$/.test(value),
  })],
  // ruby's `-l`, `-a`, `-n`, `-p` are flags; `-W`, `-T`, `-0`, `-K`, `-x`, `-F` take only an attached value.
  ['ruby', interpreter('ruby', {
    codeLetters: 'e',
    valueLetters: 'CEIr',
    valueLongs: ['--enable', '--disable', '--encoding', '--external-encoding', '--internal-encoding'],
    noProgram: ['-v', '--version', '-h', '--help'],
    attached: { W: /^(?:[0-2]|:[\w-]+)?/, T: /^[0-9]*/, '0': /^[0-7]*/, K: /^./, x: /^.*/, F: /^.*/ },
  })],
  ['php', interpreter('php', { codeLetters: 'rRBEa', valueLetters: 'cdfFzt', noProgram: ['-v', '--version', '-h', '--help', '-m', '-i', '-l', '-s', '-f'] })],
  ['lua', interpreter('lua', { codeLetters: 'ei', valueLetters: 'l', noProgram: ['-v'] })],
  ['luajit', interpreter('luajit', { codeLetters: 'ei', valueLetters: 'lbjO', noProgram: ['-v'] })],
  ['rscript', interpreter('Rscript', { codeLetters: 'e', noProgram: ['--version', '--help'] })],
  ['deno', (rest) => (rest.some((word) => word === 'eval' || word === 'repl') ? opaque('`deno eval` runs code given on the command line') : [])],
  ['sed', sed],
  ...['awk', 'gawk', 'mawk', 'nawk'].map((name): [string, Unwrapper] => [name, awk]),
  ['make', make],
  ['gmake', make],
  ['tar', tar],
  ['git', git],
  ['ssh', ssh('ssh')],
  ['scp', ssh('scp')],
  ['sftp', ssh('sftp')],
  ['rsync', rsync],
  // sort: `--compress-program=PROG` (or an abbreviation, `--compress-prog`) runs PROG.
  ['sort', (rest) => {
    const commands: string[][] = []
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!
      if (word === '--') break
      const long = word.split('=', 1)[0]!
      if (long.length >= 5 && '--compress-program'.startsWith(long)) commands.push(...splitScript(word.includes('=') ? word.slice(long.length + 1) : rest[++i] ?? ''))
    }
    return commands
  }],
  ['zip', (rest) => valuesOf(rest, ['-TT', '--unzip-command']).flatMap((value) => splitScript(value))],
  ...['vi', 'vim', 'nvim', 'gvim', 'view', 'vimdiff', 'ex', 'emacs', 'emacsclient', 'ed'].map((name): [string, Unwrapper] => [name, EDITOR(name)]),
  // less and man: a terminal is needed for their `!` escapes (bash's commands have none), but options name commands too.
  ['less', (rest) => (rest.some((word) => word.startsWith('+')) ? opaque('`less +…` runs a less command, which can be `!` (a shell escape)') : [])],
  ['man', (rest) => valuesOf(rest, ['-P', '--pager', '-H', '--html']).flatMap((value) => splitScript(value))],
])
