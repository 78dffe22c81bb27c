/**
 * The five built-in tools for a command, built from its sandbox options.
 *
 * @module
 */
import { statSync } from 'node:fs'
import { errorSummary } from '../exceptions.js'
import { Sandbox, type SandboxOptions } from '../sandbox/sandbox.js'
import { createTools, type BuiltinTools } from '../tools/index.js'
import { oneLine } from './io.js'
import { CliUsageError } from './usage.js'

/**
 * Create the sandbox and tools, turning a bad `--root` (missing, not a
 * directory) into a usage error.
 *
 * @param options - Sandbox options from the command line.
 * @param command - The command, for the error's help pointer.
 * @returns The tools.
 * @throws {@link CliUsageError} when the sandbox cannot be created.
 */
export function sandboxTools(options: SandboxOptions, command: string): BuiltinTools {
  return createTools(commandSandbox(options, command))
}

/**
 * Create the sandbox of a command, turning a bad `--root` or option into a
 * usage error.
 *
 * @param options - Sandbox options from the command line.
 * @param command - The command, for the error's help pointer.
 * @returns The sandbox.
 * @throws {@link CliUsageError} when the sandbox cannot be created.
 */
export function commandSandbox(options: SandboxOptions, command: string): Sandbox {
  if (options.rootDir !== undefined) assertDirectory(options.rootDir, command)
  try {
    return withRefusingProxy(new Sandbox(options), options)
  } catch (error) {
    throw new CliUsageError(asFlags(oneLine(errorSummary(error))), command)
  }
}

/** The library's option names in a sandbox error, as the flags the user typed. */
const FLAGS: readonly (readonly [RegExp, string])[] = [
  [/"maxOutputBytes"/g, '--max-output-bytes'],
  [/"timeoutMs"/g, '--timeout-ms'],
  [/"allowNetwork\.domains\[\d+\]"/g, '--allow-domain'],
  [/"limits\.processes"/g, '--limit-processes'],
  [/"limits\.memoryBytes"/g, '--limit-memory'],
  [/"limits\.tmpBytes"/g, '--limit-tmp'],
  [/"limits\.fileSizeBytes"/g, '--limit-file-size'],
]

function asFlags(message: string): string {
  let text = message.replace(/^E_INVALID_OPTIONS: Invalid sandbox options: /, '')
  for (const [name, flag] of FLAGS) text = text.replace(name, flag)
  return text
}

/**
 * The command line's default network: where the OS sandbox can run the
 * allowlist proxy, `bash` runs behind it with an empty list rather than in
 * an empty namespace. Nothing more is reachable, but a refused request
 * answers 403 naming the host, so the model can ask for exactly that host.
 * Elsewhere the library's default (`false`) stays.
 */
function withRefusingProxy(sandbox: Sandbox, options: SandboxOptions): Sandbox {
  if (options.allowNetwork !== undefined || options.isolation !== undefined) return sandbox
  const candidate = new Sandbox({ ...options, allowNetwork: { domains: [] } })
  return candidate.networkGatewayProblem() === undefined ? candidate : sandbox
}

function assertDirectory(dir: string, command: string): void {
  let isDirectory = false
  try {
    isDirectory = statSync(dir).isDirectory()
  } catch {
    throw new CliUsageError(`--root ${dir} does not exist`, command)
  }
  if (!isDirectory) throw new CliUsageError(`--root ${dir} is not a directory`, command)
}
