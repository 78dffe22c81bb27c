/**
 * The pieces of a shell script `splitScript` reads as one unit: a
 * here-document's delimiter and body, a command substitution (`$(…)`,
 * backquotes), an ANSI-C quoted string (`$'…'`), a bracketed group.
 *
 * @module
 */

/** A here-document's delimiter, as read after `<<`. */
export interface Heredoc {
  readonly delimiter: string
  /** `<<-`: leading tabs of body lines are removed. */
  readonly stripTabs: boolean
  /** A quoted delimiter: the body is taken as it is, nothing in it runs. */
  readonly quoted: boolean
}

/** Read `[-]DELIMITER` after `<<` (at `start`); returns it and where the script goes on. */
export function readHeredocStart(script: string, start: number): [Heredoc, number] {
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
export function readHeredocBody(script: string, start: number, heredoc: Heredoc): [string, number, boolean] {
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

/**
 * The body of the substitution starting at `start` (a backquote or `$(`) and
 * the index of its closing character (the end of the script when unclosed).
 */
export function readSubstitution(script: string, start: number): [string, number] {
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
export function ansiC(script: string, start: number): [string, number] {
  let text = ''
  let i = start + 2
  while (i < script.length && script[i] !== "'") {
    const ch = script[i]!
    if (ch !== '\\' || i + 1 >= script.length) {
      text += ch
      i++
      continue
    }
    const escaped = script[i + 1]!
    const simple = ANSI_C_ESCAPES[escaped]
    if (simple !== undefined) {
      text += simple
      i += 2
      continue
    }
    const numeric = /^(?:[0-7]{1,3}|x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8})/.exec(script.slice(i + 1, i + 10))
    if (numeric === null) {
      if (escaped === 'c') return asWritten(script, start)
      // An unknown escape stays as written, backslash included (bash does the same).
      text += ch + escaped
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
export function closingBracket(script: string, start: number, open: string, close: string): number {
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
