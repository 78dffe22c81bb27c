/**
 * The usage error for a mistyped name (a tool, a provider), with the name
 * most likely meant.
 *
 * @module
 */
import { didYouMean } from '../utils/did_you_mean.js'
import { CliUsageError } from './usage.js'

/** A usage error about a name that does not exist, carrying the closest one that does. */
export class UnknownNameError extends CliUsageError {
  /** The name most likely meant (`read` for `reed`), when one is close enough. */
  readonly suggestion: string | undefined

  /**
   * @param message - What is wrong, in one line.
   * @param command - The command whose `--help` explains the fix.
   * @param suggestion - The name most likely meant.
   */
  constructor(message: string, command: string, suggestion: string | undefined) {
    super(message, command)
    this.name = 'UnknownNameError'
    this.suggestion = suggestion
  }
}

/**
 * `Unknown tool "reed" — did you mean "read"?`, or, with nothing close,
 * `Unknown tool "nope"; expected read, write, …`.
 *
 * @param kind - What the name names (`tool`, `provider`).
 * @param name - What the user typed.
 * @param known - The names that exist, in the order to list them.
 * @param command - The command, for the help pointer.
 * @returns The error to throw.
 */
export function unknownName(kind: string, name: string, known: readonly string[], command: string): UnknownNameError {
  const suggestion = didYouMean(name, known)
  const message =
    suggestion === undefined
      ? `Unknown ${kind} "${name}"; expected ${known.join(', ')}`
      : `Unknown ${kind} "${name}" — did you mean "${suggestion}"?`
  return new UnknownNameError(message, command, suggestion)
}
