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
for (const ch of '\'"\\ \t`$;&|\n(){}<>') SPECIAL[ch.charCodeAt(0)] = 1
/** Inside double quotes, the characters that are not copied as they are. */
const SPECIAL_IN_DOUBLE = new Uint8Array(128)
for (const ch of '"\\`$') SPECIAL_IN_DOUBLE[ch.charCodeAt(0)] = 1
/** Operators and grouping characters: each ends the command before it. */
const OPERATORS = new Uint8Array(128)
for (const ch of ';&|\n(){}<>') OPERATORS[ch.charCodeAt(0)] = 1

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/**
 * Split a shell script into simple commands, approximately: quotes are
 * honoured, operators and substitutions start a new command. Over-splitting
 * is harmless (each piece is checked), so the approximation errs that way.
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
          word += script[i + 1]
          i += 2
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
      word += script[i + 1]
      inWord = true
      i += 2
      continue
    }
    if (ch === ' ' || ch === '\t') {
      if (inWord) words.push(word)
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
    if (OPERATORS[code] === 1) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
      endCommand(words, commands)
      words = []
      i++
      continue
    }
    // `$` not starting a substitution, a lone `\\` at the end: plain text.
    word += ch
    inWord = true
    i++
  }
  if (inWord) words.push(word)
  endCommand(words, commands)
  if (nested !== undefined) for (const command of nested) commands.push(command)
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
    const end = script.indexOf('`', start + 1)
    return end === -1 ? [script.slice(start + 1), script.length - 1] : [script.slice(start + 1, end), end]
  }
  let depth = 0
  let quote: string | undefined
  for (let i = start + 1; i < script.length; i++) {
    const ch = script[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      continue
    }
    if (ch === "'" || ch === '"') quote = ch
    else if (ch === '(') depth++
    else if (ch === ')' && --depth === 0) return [script.slice(start + 2, i), i]
  }
  return [script.slice(start + 2), script.length - 1]
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

