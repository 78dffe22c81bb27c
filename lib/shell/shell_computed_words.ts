/**
 * Computed words: whether a word `splitScript` gives could become other text
 * when the script runs (a substitution, a glob, a brace expansion), and the
 * shape of the words it can become.
 *
 * @module
 */

/** `$`, a backquote, `*`, `?`, `(` (an extended glob): a word with one is computed. */
const COMPUTED_CHAR = new Uint8Array(128)
for (const ch of '$`*?(') COMPUTED_CHAR[ch.charCodeAt(0)] = 1
/** `[` and `{`: computed when a `[…]` class or a `{a,b}` / `{1..3}` brace expansion follows. */
const BRACKET_OR_BRACE = /\[.*\]|\{[^{}]*(?:,|\.\.)[^{}]*\}/s

/**
 * Whether a word as `splitScript` gives it could become other text
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
 * @param word - A word from `splitScript` or a command's argv.
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
