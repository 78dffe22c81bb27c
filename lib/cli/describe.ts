/**
 * `toolsmith describe [--provider P] [--json]`: the tool definitions as JSON.
 *
 * @module
 */
import type { Tool } from '../core/tool.js'
import { toAnthropicTools } from '../providers/anthropic/anthropic.js'
import { toGeminiFunctionDeclarations } from '../providers/gemini/gemini.js'
import { toJsonSchema } from '../providers/json_schema.js'
import { toMcpTools } from '../surfaces/mcp/mcp.js'
import { toOpenAIResponsesTools, toOpenAITools } from '../providers/openai/openai.js'
import type { ParsedCommandLine } from './options.js'
import { writeOut, type CliIo } from './io.js'
import { sandboxTools } from './sandbox_tools.js'
import { writeJson } from './json_output.js'
import { unknownName } from './unknown_name.js'
import { CliUsageError } from './usage.js'

type Tools = Tool[]

/** Every `--provider`, and how it builds the definitions. */
const PROVIDERS: Readonly<Record<string, (tools: Tools) => unknown[]>> = {
  jsonschema: (tools) =>
    tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: toJsonSchema(tool.inputSchema),
      sideEffect: tool.sideEffect,
      idempotent: tool.idempotent,
    })),
  openai: (tools) => toOpenAITools(tools).definitions,
  'openai-responses': (tools) => toOpenAIResponsesTools(tools).definitions,
  anthropic: (tools) => toAnthropicTools(tools).definitions,
  gemini: (tools) => toGeminiFunctionDeclarations(tools).definitions,
  mcp: (tools) => toMcpTools(tools).definitions,
}

/**
 * Run `describe`.
 *
 * @param parsed - The command line.
 * @param io - The streams.
 * @returns 0.
 * @throws {@link CliUsageError} for an unknown provider or extra arguments.
 */
export async function runDescribe(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  if (parsed.args.length > 0) throw new CliUsageError(`Unexpected argument "${parsed.args[0]}"`, 'describe')
  const provider = parsed.provider ?? 'jsonschema'
  // Own names only: `constructor` or `__proto__` is an unknown provider, not an object's property.
  const build = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined
  if (!build) throw unknownName('provider', provider, Object.keys(PROVIDERS), 'describe')
  const tools = Object.values(sandboxTools(parsed.sandbox, 'describe')) as Tools
  const definitions = build(tools)
  if (parsed.json) await writeJson(io, { ok: true, provider, definitions, exitCode: 0 } satisfies DescribeJson)
  else await writeOut(io.stdout, `${JSON.stringify(definitions, null, 2)}\n`)
  return 0
}

/** `toolsmith describe --json`'s document. */
export interface DescribeJson {
  /** Always `true` (a failure is a `JsonFailure`). */
  ok: true
  /** The `--provider` the definitions are shaped for. */
  provider: string
  /** One definition per tool, exactly as `describe` without `--json` prints them. */
  definitions: unknown[]
  /** Always 0. */
  exitCode: 0
}
