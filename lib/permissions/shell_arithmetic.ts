/**
 * Where a shell script evaluates arithmetic on values it does not show.
 * bash evaluates a variable's value as an expression in arithmetic
 * (`$((x))`, `(( x ))`, `let`, `[[ $x -eq 0 ]]`, assignments to a
 * `declare -i` name, indexed array subscripts), and an expression can hold
 * an array subscript with a command substitution in it
 * (`x='a[$(rm -rf v)]'; echo $((x))` runs `rm -rf v`). What such a script
 * runs cannot be known from its words, so the permission rules treat it as
 * unknowable. Literal arithmetic (`$((1+2))`, `(( 3 > 2 ))`) and string
 * tests (`[[ "$a" == x ]]`) stay readable. Conservative: a name in the
 * expression counts even when its value is harmless.
 *
 * @module
 */

/** A name or an expansion in an arithmetic expression: its value is evaluated too. */
const NAMES = /[A-Za-z_$`]/

/** The command word positions of a script: its start, or after a blank, `;`, `&`, `|`, `(`, `{`, `!` or a newline. */
const AT_COMMAND = String.raw`(?:^|[\s;&|({!])`

const DECLARE_INTEGER = new RegExp(String.raw`${AT_COMMAND}(?:declare|typeset|local)\s+(?:[-+][A-Za-z]*\s+)*[-+][A-Za-z]*i`)
const LET = new RegExp(String.raw`${AT_COMMAND}let(?:\s|$)`)
/** An assignment to an indexed array element whose subscript is not a plain number (`a[x]=1`, `a[$i]+=1`). */
const SUBSCRIPT_ASSIGNMENT = new RegExp(String.raw`${AT_COMMAND}[A-Za-z_][A-Za-z0-9_]*\[(?![0-9]*\])[^\]]*\]\+?=`)
const INTEGER_TEST = /\s-(?:eq|ne|lt|le|gt|ge)(?=\s)/

/**
 * Why `text`, run as a shell script, evaluates arithmetic on values the
 * script does not show; `undefined` when it does not (or only on literals).
 *
 * @param text - A script (a `bash -c` word, an `eval` argument, a wrapper's word).
 * @returns The reason, for a message.
 */
export function arithmeticOnValues(text: string): string | undefined {
  if (!/\(\(|\$\[|\[\[|let|declare|typeset|local|\]/.test(text)) return undefined
  // `$(( … ))`, `(( … ))`, `for (( … ))`, the old `$[ … ]`: up to the closing pair (or the end).
  for (const match of text.matchAll(/\(\(([\s\S]*?)(?:\)\)|$)|\$\[([^\]]*)(?:\]|$)/g)) {
    if (NAMES.test(match[1] ?? match[2] ?? '')) return 'it evaluates arithmetic on a variable, whose value can run a command substitution (`x=\'a[$(…)]\'; echo $((x))`)'
  }
  if (LET.test(text)) return '`let` evaluates arithmetic on values, which can run a command substitution'
  if (DECLARE_INTEGER.test(text)) return 'an integer variable (`declare -i`) evaluates what is assigned to it, which can run a command substitution'
  if (SUBSCRIPT_ASSIGNMENT.test(text)) return 'an array subscript is evaluated as arithmetic, which can run a command substitution'
  for (const match of text.matchAll(/\[\[([\s\S]*?)(?:\]\]|$)/g)) {
    const test = match[1]!
    if (INTEGER_TEST.test(test) && NAMES.test(test.replace(/\s-(?:eq|ne|lt|le|gt|ge)(?=\s)/g, ' ').replace(/&&|\|\||!/g, ' '))) {
      return '`[[ … -eq … ]]` evaluates its operands as arithmetic, which can run a command substitution'
    }
  }
  return undefined
}
