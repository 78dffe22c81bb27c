/**
 * Shell words: an approximate split of a script into simple commands, for
 * the network guard (no shell is ever run by `bash`; scripts are inspected
 * when a command hands one to `sh -c` and the like).
 *
 * @module
 */
import { ansiC, closingBracket, readHeredocBody, readHeredocStart, readSubstitution, type Heredoc } from './shell_lexemes.js'

export { computedWordPattern, isComputedWord } from './shell_computed_words.js'


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
          if (next >= 128 || ESCAPABLE_IN_DOUBLE[next] === 0) word += `\\${script[i + 1]}`
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

/** A descriptor word before a redirection: a number (`2>`) or a named one (`{fd}>`). */
const DESCRIPTOR = /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/

/** A command word standing for a part of a script that cannot be read before it runs (it fails closed). */
const UNKNOWABLE = '$(unreadable part of the script)'

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
 * `env -S` splitting: whitespace-separated words with simple quotes.
 *
 * @param text - The words.
 * @returns Them, split.
 */
export function splitWords(text: string): string[] {
  return splitScript(text).flat()
}

