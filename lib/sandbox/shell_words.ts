/**
 * Shell words: an approximate split of a script into simple commands, for
 * the network guard (no shell is ever run by `bash`; scripts are inspected
 * when a command hands one to `sh -c` and the like).
 *
 * @module
 */

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
  const nested: string[][] = []
  let words: string[] = []
  let word = ''
  let inWord = false
  let quote: '"' | "'" | undefined
  const endWord = (): void => {
    if (inWord) words.push(word)
    word = ''
    inWord = false
  }
  const endCommand = (): void => {
    endWord()
    // Leading NAME=value assignments are not the command.
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift()
    if (words.length > 0) commands.push(words)
    words = []
  }
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!
    if (quote === "'") {
      if (ch === "'") quote = undefined
      else word += ch
      continue
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined
      else if (ch === '\\' && i + 1 < script.length) word += script[++i]
      else if (ch === '`' || (ch === '$' && script[i + 1] === '(')) {
        // A substitution inside double quotes is a script of its own.
        const [body, end] = readSubstitution(script, i)
        nested.push(...splitScript(body))
        word += script.slice(i, end + 1)
        i = end
      } else word += ch
      continue
    }
    if (ch === "'" || ch === '"') {
      quote = ch
      inWord = true
      continue
    }
    if (ch === '\\' && i + 1 < script.length) {
      word += script[++i]
      inWord = true
      continue
    }
    if (ch === ' ' || ch === '\t') {
      endWord()
      continue
    }
    if (ch === '`' || (ch === '$' && script[i + 1] === '(')) {
      const [body, end] = readSubstitution(script, i)
      nested.push(...splitScript(body))
      // Kept in the word: a substitution in command position makes the command unknowable.
      word += script.slice(i, end + 1)
      i = end
      inWord = true
      continue
    }
    if (';&|\n(){}<>'.includes(ch)) {
      endCommand()
      continue
    }
    word += ch
    inWord = true
  }
  endCommand()
  return [...commands, ...nested]
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

