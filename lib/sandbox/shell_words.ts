/**
 * Shell words: an approximate split of a script into simple commands, for
 * the network guard (no shell is ever run by `bash`; scripts are inspected
 * when a command hands one to `sh -c` and the like).
 *
 * @module
 */

/**
 * Characters that are not plain word text outside quotes: quotes, `\\`,
 * blanks, substitutions and operators. A run of other characters is copied
 * into the word in one slice (a script is scanned on every `bash` call the
 * permission gate and the network guard look at).
 */
const SPECIAL = new Uint8Array(128)
for (const ch of '\'"\\ \t`$;&|\n(){}<>#') SPECIAL[ch.charCodeAt(0)] = 1
/** Inside double quotes, the characters that are not copied as they are. */
const SPECIAL_IN_DOUBLE = new Uint8Array(128)
for (const ch of '"\\`$') SPECIAL_IN_DOUBLE[ch.charCodeAt(0)] = 1
/**
 * Operators and grouping characters: each ends the command before it. `{`
 * and `}` are not here: they group only as words of their own (`{ a; }`);
 * inside a word they are brace expansion (`{git,}`) or plain text (`{}`).
 */
const OPERATORS = new Uint8Array(128)
for (const ch of ';&|\n()<>') OPERATORS[ch.charCodeAt(0)] = 1
/** What may follow a `{` or `}` that stands alone as a grouping word. */
const GROUP_END = new Uint8Array(128)
for (const ch of ' \t\n;&|()<>') GROUP_END[ch.charCodeAt(0)] = 1
/** The characters that start an extended glob `@(…)` when `(` follows them in a word. */
const EXTGLOB = new Uint8Array(128)
for (const ch of '?*+@!') EXTGLOB[ch.charCodeAt(0)] = 1
/** Inside double quotes, the characters a backslash escapes (it stays before any other). */
const ESCAPABLE_IN_DOUBLE = new Uint8Array(128)
for (const ch of '$`"\\\n') ESCAPABLE_IN_DOUBLE[ch.charCodeAt(0)] = 1

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/**
 * Split a shell script into simple commands, approximately: quotes are
 * honoured, operators and substitutions start a new command. Over-splitting
 * is harmless (each piece is checked), so the approximation errs that way.
 *
 * What the shell would expand is kept as written, so that
 * {@link isComputedWord} can tell it from literal text: `$X`, `${X:-a}`,
 * `$(…)` and backquotes, globs (`pus?`, `pus[h]`, `@(push)`), brace
 * expansion (`{git,}`). What the shell turns into fixed text is decoded:
 * quotes, backslashes, `$'…'` (ANSI-C quoting) and a backslash-newline (a
 * line continuation, removed).
 *
 * @param script - A shell script.
 * @returns Its simple commands, as words.
 */
export function splitScript(script: string): string[][] {
  const commands: string[][] = []
  let nested: string[][] | undefined
  let words: string[] = []
  let word = ''
  let inWord = false
  const length = script.length
  // Here-documents whose bodies start at the next line end.
  let heredocs: Heredoc[] | undefined
  // The next word is a redirection's target: a path or a string, not an argument.
  let redirect = false
  let i = 0
  while (i < length) {
    const code = script.charCodeAt(i)
    if (code >= 128 || SPECIAL[code] === 0) {
      // A run of plain characters, copied at once.
      let j = i + 1
      while (j < length) {
        const next = script.charCodeAt(j)
        if (next < 128 && SPECIAL[next] === 1) break
        j++
      }
      word += script.slice(i, j)
      inWord = true
      i = j
      continue
    }
    const ch = script[i]!
    if (ch === "'") {
      // Everything up to the closing quote, as it is.
      const close = script.indexOf("'", i + 1)
      const end = close === -1 ? length : close
      word += script.slice(i + 1, end)
      inWord = true
      i = end + 1
      continue
    }
    if (ch === '"') {
      inWord = true
      i++
      while (i < length) {
        const inner = script.charCodeAt(i)
        if (inner >= 128 || SPECIAL_IN_DOUBLE[inner] === 0) {
          let j = i + 1
          while (j < length) {
            const next = script.charCodeAt(j)
            if (next < 128 && SPECIAL_IN_DOUBLE[next] === 1) break
            j++
          }
          word += script.slice(i, j)
          i = j
          continue
        }
        const c = script[i]!
        if (c === '"') break
        if (c === '\\' && i + 1 < length) {
          // Only `$ \` " \\` and a newline are escaped; before anything else the backslash stays.
          const next = script.charCodeAt(i + 1)
          if (next >= 128 || ESCAPABLE_IN_DOUBLE[next] === 0) word += '\\' + script[i + 1]
          else if (next !== 10) word += script[i + 1]
          i += 2
        } else if (c === '$' && script[i + 1] === '{') {
          // A parameter expansion: quotes inside it are its own (`"${x/'"'/y}"`),
          // and so are the substitutions it holds, which run.
          const end = closingBracket(script, i + 1, '{', '}')
          const expansion = script.slice(i, end + 1)
          if (expansion.includes('$(') || expansion.includes('`')) (nested ??= []).push(...substitutionsIn(expansion.slice(1)))
          word += expansion
          i = end + 1
        } else if (c === '`' || (c === '$' && script[i + 1] === '(')) {
          // A substitution inside double quotes is a script of its own.
          const [body, end] = readSubstitution(script, i)
          ;(nested ??= []).push(...splitScript(body))
          word += script.slice(i, end + 1)
          i = end + 1
        } else {
          word += c
          i++
        }
      }
      i++ // the closing quote (or past the end when unclosed)
      continue
    }
    if (ch === '\\' && i + 1 < length) {
      // A backslash-newline is a line continuation: both go, the word goes on.
      if (script[i + 1] !== '\n') {
        word += script[i + 1]
        inWord = true
      }
      i += 2
      continue
    }
    if (ch === '$' && script[i + 1] === "'") {
      const [text, end] = ansiC(script, i)
      word += text
      inWord = true
      i = end + 1
      continue
    }
    if (ch === '{' || ch === '}') {
      // A grouping word (`{ a; }`) ends the command before it, like an operator.
      const next = i + 1 < length ? script.charCodeAt(i + 1) : 10
      if (!inWord && !redirect && next < 128 && GROUP_END[next] === 1) {
        endCommand(words, commands)
        words = []
        i++
        continue
      }
      word += ch
      inWord = true
      i++
      continue
    }
    if (ch === '(' && inWord && word.length > 0 && EXTGLOB[word.charCodeAt(word.length - 1)] === 1) {
      // An extended glob (`@(push)`, with `shopt -s extglob`): part of the word.
      const end = closingBracket(script, i, '(', ')')
      const glob = script.slice(i, end + 1)
      // A substitution inside the pattern still runs (`@(a|$(…))`).
      if (glob.includes('$(') || glob.includes('`')) (nested ??= []).push(...substitutionsIn(glob))
      word += glob
      i = end + 1
      continue
    }
    if (ch === ' ' || ch === '\t') {
      if (inWord) {
        if (redirect) redirect = false
        else words.push(word)
      }
      word = ''
      inWord = false
      i++
      continue
    }
    if (ch === '`' || (ch === '$' && script[i + 1] === '(')) {
      const [body, end] = readSubstitution(script, i)
      ;(nested ??= []).push(...splitScript(body))
      // Kept in the word: a substitution in command position makes the command unknowable.
      word += script.slice(i, end + 1)
      inWord = true
      i = end + 1
      continue
    }
    if (ch === '#' && !inWord) {
      // A comment, to the end of the line (a quote in it quotes nothing).
      const end = script.indexOf('\n', i)
      i = end === -1 ? length : end
      continue
    }
    if (ch === '<' && script[i + 1] === '<' && script[i + 2] !== '<') {
      // A here-document: the delimiter is no command, and its body (the
      // lines after this one) is no script, except for the substitutions of
      // an unquoted one, which the shell runs.
      const [heredoc, end] = readHeredocStart(script, i + 2)
      ;(heredocs ??= []).push(heredoc)
      if (inWord) {
        // A pending redirection's target, or a descriptor (`2`, `{fd}`) of this one: no word.
        if (redirect) redirect = false
        else if (!DESCRIPTOR.test(word)) words.push(word)
      }
      word = ''
      inWord = false
      i = end
      continue
    }
    if ((ch === '<' || ch === '>' || (ch === '&' && script[i + 1] === '>')) && script[i + 1] !== '(') {
      // A redirection (`> log`, `2>&1`, `&> out`, `< in`, `<<< text`): a
      // descriptor number before it is no word, and its target is a path or
      // a string, not a command or an argument. (`<(…)` and `>(…)` are
      // process substitutions: scripts, split as such below.)
      if (inWord && !DESCRIPTOR.test(word) && !redirect) words.push(word)
      word = ''
      inWord = false
      let j = i + 1
      while (j < length && (script[j] === '>' || script[j] === '<' || script[j] === '&' || script[j] === '|') && script[j + 1] !== '(') {
        // `&&` and `||` after a redirection operator end the command instead.
        if ((script[j] === '&' && script[j + 1] === '&') || (script[j] === '|' && script[j + 1] === '|')) break
        j++
      }
      redirect = true
      i = j
      continue
    }
    if (OPERATORS[code] === 1) {
      if (inWord && !redirect) words.push(word)
      redirect = false
      word = ''
      inWord = false
      endCommand(words, commands)
      words = []
      i++
      if (ch === '\n' && heredocs !== undefined) {
        for (const heredoc of heredocs) {
          const [body, end, terminated] = readHeredocBody(script, i, heredoc)
          if (!heredoc.quoted) for (const command of substitutionsIn(body)) (nested ??= []).push(command)
          // No delimiter line (or `<<` that was no here-document, such as an arithmetic
          // shift): the rest of the script cannot be told apart from text, so it is unknowable.
          if (!terminated) (nested ??= []).push([UNKNOWABLE])
          i = end
        }
        heredocs = undefined
      }
      continue
    }
    // `$` not starting a substitution, a lone `\\` at the end: plain text.
    word += ch
    inWord = true
    i++
  }
  if (inWord && !redirect) words.push(word)
  endCommand(words, commands)
  if (nested !== undefined) for (const command of nested) commands.push(command)
  return commands
}

/** A here-document's delimiter, as read after `<<`. */
interface Heredoc {
  readonly delimiter: string
  /** `<<-`: leading tabs of body lines are removed. */
  readonly stripTabs: boolean
  /** A quoted delimiter: the body is taken as it is, nothing in it runs. */
  readonly quoted: boolean
}

/** A descriptor word before a redirection: a number (`2>`) or a named one (`{fd}>`). */
const DESCRIPTOR = /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/

/** A command word standing for a part of a script that cannot be read before it runs (it fails closed). */
const UNKNOWABLE = '$(unreadable part of the script)'

/** Read `[-]DELIMITER` after `<<` (at `start`); returns it and where the script goes on. */
function readHeredocStart(script: string, start: number): [Heredoc, number] {
  let i = start
  const stripTabs = script[i] === '-'
  if (stripTabs) i++
  while (script[i] === ' ' || script[i] === '\t') i++
  let delimiter = ''
  let quoted = false
  while (i < script.length) {
    const ch = script[i]!
    if (ch === '$' && (script[i + 1] === "'" || script[i + 1] === '"')) {
      // `$'E'` and `$"E"` are the delimiter `E`, quoted.
      i++
      continue
    }
    if (ch === "'" || ch === '"') {
      quoted = true
      const close = script.indexOf(ch, i + 1)
      const end = close === -1 ? script.length : close
      delimiter += script.slice(i + 1, end)
      i = end + 1
      continue
    }
    if (ch === '\\') {
      quoted = true
      delimiter += script[i + 1] ?? ''
      i += 2
      continue
    }
    if (' \t\n;&|()<>'.includes(ch)) break
    delimiter += ch
    i++
  }
  return [{ delimiter, stripTabs, quoted }, i]
}

/**
 * The body of a here-document starting at `start` (a line start), where the
 * script goes on after its delimiter line, and whether that line was found.
 */
function readHeredocBody(script: string, start: number, heredoc: Heredoc): [string, number, boolean] {
  let i = start
  while (i < script.length) {
    const newline = script.indexOf('\n', i)
    const lineEnd = newline === -1 ? script.length : newline
    let line = script.slice(i, lineEnd)
    if (heredoc.stripTabs) line = line.replace(/^\t+/, '')
    if (line === heredoc.delimiter) return [script.slice(start, i), newline === -1 ? script.length : newline + 1, true]
    i = lineEnd + 1
  }
  // No delimiter line: the body runs to the end, as bash reads it (with a warning).
  return [script.slice(start), script.length, false]
}

/** The commands of the substitutions (`$(…)`, backquotes) in an unquoted here-document's body. */
function substitutionsIn(body: string): string[][] {
  const commands: string[][] = []
  for (let k = 0; k < body.length; k++) {
    const ch = body[k]
    if (ch === '\\') {
      k++
      continue
    }
    if (ch === '`' || (ch === '$' && body[k + 1] === '(')) {
      const [inner, end] = readSubstitution(body, k)
      commands.push(...splitScript(inner))
      k = end
    }
  }
  return commands
}

/** Close a simple command: leading NAME=value assignments are not the command. */
function endCommand(words: string[], commands: string[][]): void {
  let first = 0
  while (first < words.length && ASSIGNMENT.test(words[first]!)) first++
  if (first < words.length) commands.push(first === 0 ? words : words.slice(first))
}

/**
 * The body of the substitution starting at `start` (a backquote or `$(`) and
 * the index of its closing character (the end of the script when unclosed).
 */
function readSubstitution(script: string, start: number): [string, number] {
  if (script[start] === '`') {
    // Up to the first unescaped backquote; inside, `\\`, `\``, `\$` stand for
    // themselves (a nested substitution is written with escaped backquotes).
    let body = ''
    for (let i = start + 1; i < script.length; i++) {
      const ch = script[i]!
      if (ch === '`') return [body, i]
      if (ch === '\\' && i + 1 < script.length) {
        const next = script[i + 1]!
        body += next === '\\' || next === '`' || next === '$' ? next : `\\${next}`
        i++
        continue
      }
      body += ch
    }
    return [body, script.length - 1]
  }
  let depth = 0
  let quote: string | undefined
  // Here-documents whose bodies start at the next line end: a `)` or a quote in one is text.
  let heredocs: Heredoc[] | undefined
  for (let i = start + 1; i < script.length; i++) {
    const ch = script[i]!
    if (ch === '\\' && quote !== "'") {
      // An escaped character (a quote or a parenthesis included) is text.
      i++
      continue
    }
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      continue
    }
    if (ch === "'" || ch === '"') quote = ch
    else if (ch === '#' && i > start + 2 && /[\s;&|(]/.test(script[i - 1]!)) {
      // A comment: a `)` or a quote in it is text.
      const end = script.indexOf('\n', i)
      i = (end === -1 ? script.length : end) - 1
    } else if (ch === '<' && script[i + 1] === '<' && script[i + 2] !== '<') {
      const [heredoc, end] = readHeredocStart(script, i + 2)
      ;(heredocs ??= []).push(heredoc)
      i = end - 1
    } else if (ch === '\n' && heredocs !== undefined) {
      let next = i + 1
      for (const heredoc of heredocs) next = readHeredocBody(script, next, heredoc)[1]
      heredocs = undefined
      i = next - 1
    } else if (ch === '(') depth++
    else if (ch === ')' && --depth === 0) return [script.slice(start + 2, i), i]
  }
  return [script.slice(start + 2), script.length - 1]
}

/** The single-character escapes of `$'…'`. */
const ANSI_C_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' }

/**
 * The text of the ANSI-C quoted string `$'…'` starting at `start` (the `$`),
 * and the index of its closing quote (the end of the script when unclosed).
 *
 * @remarks
 * Decoded as bash does for what a command name or option can be spelled
 * with: the letter escapes, `\nnn` octal, `\xHH`, `\uHHHH` and `\UHHHHHHHH`.
 * What is not decoded exactly (`\cX`, a NUL that would cut the string, a
 * byte that is not UTF-8 on its own) keeps the string as written, `$'`
 * included, so {@link isComputedWord} treats the word as computed.
 */
function ansiC(script: string, start: number): [string, number] {
  let text = ''
  let i = start + 2
  while (i < script.length && script[i] !== "'") {
    const ch = script[i]!
    if (ch !== '\\' || i + 1 >= script.length) {
      text += ch
      i++
      continue
    }
    const escape = script[i + 1]!
    const simple = ANSI_C_ESCAPES[escape]
    if (simple !== undefined) {
      text += simple
      i += 2
      continue
    }
    const numeric = /^(?:[0-7]{1,3}|x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8})/.exec(script.slice(i + 1, i + 10))
    if (numeric === null) {
      if (escape === 'c') return asWritten(script, start)
      // An unknown escape stays as written, backslash included (bash does the same).
      text += ch + escape
      i += 2
      continue
    }
    const digits = numeric[0]
    const code = /^[0-7]/.test(digits) ? parseInt(digits, 8) : parseInt(digits.slice(1), 16)
    const bytewise = digits[0] !== 'u' && digits[0] !== 'U'
    if (code === 0 || (bytewise && code >= 0x80) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return asWritten(script, start)
    text += String.fromCodePoint(code)
    i += 1 + digits.length
  }
  return [text, i]
}

/** `$'…'` kept as written (computed for {@link isComputedWord}): the text and its closing quote. */
function asWritten(script: string, start: number): [string, number] {
  let i = start + 2
  while (i < script.length && script[i] !== "'") i += script[i] === '\\' ? 2 : 1
  const end = Math.min(i, script.length)
  return [script.slice(start, end + 1), end]
}

/**
 * The index of the `close` matching the `open` at `start` (quoted text,
 * escapes and nested pairs skipped: a quoted `)` is part of `@(')'|x)`);
 * the end of the script when unclosed.
 */
function closingBracket(script: string, start: number, open: string, close: string): number {
  let depth = 0
  let quote: string | undefined
  for (let i = start; i < script.length; i++) {
    const ch = script[i]!
    if (ch === '\\' && quote !== "'") {
      i++
      continue
    }
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      continue
    }
    if (ch === "'" || ch === '"') quote = ch
    else if (ch === open) depth++
    else if (ch === close && --depth === 0) return i
  }
  return script.length - 1
}

/** `$`, a backquote, `*`, `?`, `(` (an extended glob): a word with one is computed. */
const COMPUTED_CHAR = new Uint8Array(128)
for (const ch of '$`*?(') COMPUTED_CHAR[ch.charCodeAt(0)] = 1
/** `[` and `{`: computed when a `[…]` class or a `{a,b}` / `{1..3}` brace expansion follows. */
const BRACKET_OR_BRACE = /\[.*\]|\{[^{}]*(?:,|\.\.)[^{}]*\}/s

/**
 * Whether a word as {@link splitScript} gives it could become other text
 * when the script runs: a parameter or command substitution (`$X`,
 * `${X:-push}`, `$(…)`, backquotes), a glob (`pus?`, `pus[h]`,
 * `@(push)`), or a brace expansion (`{git,}`, `{1..3}`).
 *
 * @remarks
 * The split keeps such words as written, and decodes quotes, so a quoted
 * `'*'` reads the same as a glob: it counts as computed too. That errs on
 * the safe side: permission rules treat a computed word as possibly
 * anything, which can only make a `deny` or `ask` match more, or an
 * `allow` match less.
 *
 * @param word - A word from {@link splitScript} or a command's argv.
 * @returns Whether it may expand to other words.
 */
export function isComputedWord(word: string): boolean {
  // A scan for the few characters that matter: this runs on every word a prefix compares.
  let open = false
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i)
    if (code >= 128) continue
    if (COMPUTED_CHAR[code] === 1) return true
    if (code === 91 || code === 123) open = true // `[` or `{`
  }
  return open && BRACKET_OR_BRACE.test(word)
}

/** Patterns of computed words, by word: a policy meets the same words on call after call. */
const patterns = new Map<string, RegExp | null>()

/**
 * What a computed word ({@link isComputedWord}) can turn into, as a
 * regular expression each resulting word matches: globs and brace
 * expansions give words of their own shape (`pus?` can only be a
 * four-letter word starting with `pus`). `undefined` when it can be
 * anything: a substitution (`$X`, `$(…)`, backquotes) or a pattern too
 * involved to follow (nested braces, `{a..z}`, `@(…)`).
 *
 * @param word - A computed word.
 * @returns Its shape, or `undefined` for anything.
 */
export function computedWordPattern(word: string): RegExp | undefined {
  let pattern = patterns.get(word)
  if (pattern === undefined) {
    pattern = globSource(word)
    if (patterns.size >= 512) patterns.clear()
    patterns.set(word, pattern)
  }
  return pattern ?? undefined
}

function globSource(word: string): RegExp | null {
  if (word.includes('$') || word.includes('`')) return null
  let source = ''
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!
    if (word[i + 1] === '(' && '?*+@!'.includes(ch)) return null // an extended glob
    if (ch === '*') source += '.*'
    else if (ch === '?') source += '.'
    else if (ch === '[' && word.indexOf(']', i + 2) !== -1) {
      // A bracket class is one character, whatever it lists.
      source += '.'
      i = word.indexOf(']', i + 2)
    } else if (ch === '{') {
      const close = word.indexOf('}', i)
      const body = close === -1 ? '' : word.slice(i + 1, close)
      if (close === -1 || !body.includes(',')) {
        if (body.includes('..') || body.includes('{')) return null
        source += '\\{'
        continue
      }
      if (body.includes('{')) return null
      const alternatives = body.split(',').map((part) => globSource(part)?.source.slice(1, -1))
      if (alternatives.some((part) => part === undefined)) return null
      source += `(?:${alternatives.join('|')})`
      i = close
    } else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  return new RegExp(`^${source}$`, 's')
}

/**
 * `env -S` splitting: whitespace-separated words with simple quotes.
 *
 * @param text - The words.
 * @returns Them, split.
 */
export function splitWords(text: string): string[] {
  return splitScript(text).flat()
}

