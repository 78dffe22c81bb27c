/**
 * The environment a sandboxed process gets: an allow-list of harmless host
 * variables plus what the sandbox was configured with, nothing else.
 *
 * @module
 */

/** Host variables passed through by name. */
const ALLOWED_NAMES = new Set([
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  // The locale categories by name (POSIX and glibc), never by prefix: SSH
  // forwards `LC_*`, and people smuggle arbitrary values through it.
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_MONETARY',
  'LC_PAPER',
  'LC_NAME',
  'LC_ADDRESS',
  'LC_TELEPHONE',
  'LC_MEASUREMENT',
  'LC_IDENTIFICATION',
  'TERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  'USER',
  'LOGNAME',
  'SHELL',
  'TZ',
  'COLUMNS',
  'LINES',
  'NO_COLOR',
])

/** Used when the host has no `PATH` at all. */
const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/**
 * Names that may never be set in a sandboxed process, even through
 * `Sandbox.env`: loader and runtime injection hooks and proxy settings.
 *
 * @param name - An environment variable name.
 * @returns Whether the name is refused.
 * @internal
 */
export function isForbiddenEnvName(name: string): boolean {
  const upper = name.toUpperCase()
  return (
    upper.startsWith('LD_') ||
    upper.startsWith('DYLD_') ||
    upper === 'NODE_OPTIONS' ||
    upper === 'BASH_ENV' ||
    upper === 'ENV' ||
    upper.endsWith('_PROXY')
  )
}

/**
 * Build the environment of a sandboxed process.
 *
 * @param host - Usually `process.env`.
 * @param extra - `Sandbox.env` (validated at construction).
 * @returns A fresh object; `PATH` is always set.
 * @internal
 */
export function buildSandboxEnv(
  host: NodeJS.ProcessEnv,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {}
  // Keys first, values only for allowed names: reading every value of
  // `process.env` (an exotic object backed by the C environment) is what costs.
  for (const name of Object.keys(host)) {
    if (!ALLOWED_NAMES.has(name)) continue
    const value = host[name]
    if (value !== undefined) env[name] = value
  }
  env.PATH ??= FALLBACK_PATH
  for (const [name, value] of Object.entries(extra)) {
    if (!isForbiddenEnvName(name)) env[name] = value
  }
  return env
}
