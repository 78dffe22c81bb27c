/**
 * Permission rules as plain data: their types, the joi schema that checks
 * them, and their compiled form.
 *
 * @module
 */
import type { PermissionRuleRef } from '../core/dispatch_context.js'
import { E_INVALID_POLICY, errorSummary } from '../exceptions.js'
import type { CustomHelpers } from 'joi'
import { validator, type ObjectSchema, type Schema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { CommandPrefix } from './command_match.js'
import { PathGlob } from './glob.js'

/** What a rule (or the policy's default) says about a call. */
export type PermissionDecision = 'allow' | 'ask' | 'deny'

/** Facts about a call a predicate may look at besides its args. */
export interface PermissionCallInfo {
  /** The tool's name. */
  readonly toolName: string
  /** The executor's `callId`. */
  readonly callId: string
}

/**
 * Match the argument a tool declares as its path (`roles.path` or
 * `roles.searchRoot`: read, write, edit, grep, or any tool that declares
 * one) against globs, after it is resolved inside the root (`..` collapsed,
 * symlinks followed).
 */
export interface PathMatch {
  /** Root-relative globs (see `PathGlob`): `src/**`, `.env*`, `{src,test}/**`. */
  paths: string[]
}

/**
 * Match the command line a tool declares (`roles.command` and
 * `roles.commandArgs`: `bash`, or any tool that declares them) by command
 * prefix, wrappers and `sh -c` scripts unwrapped.
 */
export interface CommandMatch {
  /** Command prefixes: `git push`, `npm publish`, `rm -rf`. */
  commands: string[]
}

/** Match with code: a predicate over the validated args (not loadable from JSON). */
export interface PredicateMatch<Args = any> {
  /**
   * Returns true when the rule applies. One that throws counts as matching
   * for `deny` and `ask` rules and as not matching for `allow` rules.
   */
  when: (args: Args, call: PermissionCallInfo) => boolean
}

/** The typed `match` of a rule: exactly one of `paths`, `commands` or `when`. */
export type PermissionMatch = PathMatch | CommandMatch | PredicateMatch

/** One rule of a policy. */
export interface PermissionRule {
  /** Shown in denials, events and journals; defaults to a summary such as `deny write .env*`. */
  name?: string
  /** The tool(s) it applies to, by name; `*` for every tool. */
  tool: string | string[]
  /** Which calls of those tools it applies to; all of them when absent. */
  match?: PermissionMatch
  /** What happens to a matching call. */
  decision: PermissionDecision
  /** Why: the model reads it in a denial, a person in an approval prompt. */
  reason?: string
}

/** A policy as data: what `PermissionPolicy` takes and a policy file holds. */
export interface RawPermissionPolicy {
  /**
   * The decision for calls no rule matches.
   *
   * @defaultValue 'allow'
   */
  default?: PermissionDecision
  /** The rules, in order (order decides which rule is reported when several of the winning decision match). */
  rules: PermissionRule[]
}

/**
 * `xor('paths', 'commands', 'when')` as a rule, with the same error types:
 * a message on a rule is not checked against joi's meta-schemas, which
 * `messages()` loads on first use (15–25 ms at import).
 */
function exactlyOneMatch(value: Record<string, unknown>, helpers: CustomHelpers): unknown {
  const given = MATCH_KINDS.filter((kind) => value[kind] !== undefined)
  if (given.length === 0) return helpers.error('object.missing', { peers: MATCH_KINDS, peersWithLabels: MATCH_KINDS })
  // The same context joi's own xor() gives: every peer, then the ones present.
  if (given.length > 1) return helpers.error('object.xor', { peers: MATCH_KINDS, peersWithLabels: MATCH_KINDS, present: given, presentWithLabels: given })
  return value
}
const MATCH_KINDS = ['paths', 'commands', 'when'] as const

// Built inside the policy schema's first build (joi loads on first use).
const toolName = (): Schema => validator
  .string()
  .pattern(/^(\*|[a-zA-Z0-9_-]{1,64})$/)
  .rule({ message: { 'string.pattern.base': '{#label} must be a tool name (letters, digits, "_" or "-") or "*" (got {#value})' } })
const decisionSchema = (): Schema => validator.string().valid('allow', 'ask', 'deny')

const ruleSchema = (): Schema => validator
  .object<PermissionRule>({
    name: validator.string().min(1).max(200),
    tool: validator.alternatives().try(toolName(), validator.array().items(toolName()).min(1)).required(),
    match: validator
      .object({
        paths: validator.array().items(validator.string().min(1).max(1_024)).min(1),
        commands: validator.array().items(validator.string().min(1).max(1_024)).min(1),
        when: validator.func(),
      })
      // Not xor() + messages(): see exactlyOneMatch.
      .custom(exactlyOneMatch)
      .rule({ message: { 'object.missing': '{#label} needs one of "paths", "commands" or "when"', 'object.xor': '{#label} takes only one of "paths", "commands" or "when"' } }),
    decision: decisionSchema().required(),
    reason: validator.string().max(2_000),
  })
  .unknown(false)

/**
 * The joi schema a policy must satisfy (an array of rules is taken as
 * `{ rules }`). Built, and joi loaded, the first time it is used.
 */
export const permissionPolicySchema: ObjectSchema<RawPermissionPolicy> = lazyObject(() => validator
  .object({
    $schema: validator.string(),
    default: decisionSchema().default('allow'),
    rules: validator.array().items(ruleSchema()).required(),
  })
  .unknown(false) as unknown as ObjectSchema<RawPermissionPolicy>)

/** A rule ready to match: its globs and prefixes compiled once. */
export interface CompiledRule {
  /** Position in the policy's `rules`. */
  readonly index: number
  /** Its name (given, or a summary). */
  readonly name: string
  /** `{ index, name }`, frozen: what decision records and denials carry. */
  readonly ref: PermissionRuleRef
  /** Tool names; `*` for all. */
  readonly tools: readonly string[]
  /** The decision. */
  readonly decision: PermissionDecision
  /** The reason, if given. */
  readonly reason: string | undefined
  /** The compiled match. */
  readonly match: CompiledMatch
}

/** A rule without `match`: every call of its tools. */
export interface CompiledAnyMatch {
  /** Discriminator. */
  readonly kind: 'any'
}

/** Compiled `paths`. */
export interface CompiledPathMatch {
  /** Discriminator. */
  readonly kind: 'paths'
  /** The globs. */
  readonly globs: readonly PathGlob[]
}

/** Compiled `commands`. */
export interface CompiledCommandMatch {
  /** Discriminator. */
  readonly kind: 'commands'
  /** The prefixes. */
  readonly prefixes: readonly CommandPrefix[]
  /** Their executable names: a command whose name is not here cannot match. */
  readonly executables: ReadonlySet<string>
}

/** A `when` predicate. */
export interface CompiledPredicateMatch {
  /** Discriminator. */
  readonly kind: 'when'
  /** The predicate. */
  readonly when: PredicateMatch['when']
}

/** The compiled `match` of a rule. */
export type CompiledMatch = CompiledAnyMatch | CompiledPathMatch | CompiledCommandMatch | CompiledPredicateMatch

/** A checked policy, rules compiled. */
export interface CompiledPolicy {
  /** The default decision. */
  readonly defaultDecision: PermissionDecision
  /** The rules, in order. */
  readonly rules: readonly CompiledRule[]
}

/**
 * Check a policy and compile its rules.
 *
 * @param raw - The policy (or an array of rules).
 * @param source - Where it came from, for messages (a file path).
 * @returns The compiled policy.
 * @throws {@link toolsmith/core!E_INVALID_POLICY} with a one-line message naming the first bad rule by index.
 */
export function compilePolicy(raw: unknown, source?: string): CompiledPolicy {
  const where = source === undefined ? 'Invalid permission policy' : `Invalid permission policy ${source}`
  const given = Array.isArray(raw) ? { rules: raw } : raw
  const { error, value } = permissionPolicySchema.validate(given, { abortEarly: true, convert: false })
  if (error) {
    const detail = error.details[0]!
    const index = detail.path[0] === 'rules' && typeof detail.path[1] === 'number' ? detail.path[1] : undefined
    const name = index === undefined ? undefined : ruleName(given, index)
    throw new E_INVALID_POLICY(`${where}: ${index === undefined ? '' : `rules[${index}]${name ? ` (${JSON.stringify(name)})` : ''}: `}${oneLine(index === undefined ? detail.message : detail.message.replace(/^"rules\[\d+\]\.?/, '"').replace(/^""/, '"rule"'))}`, {
      cause: error,
      details: { source, index, path: detail.path.join('.') },
    })
  }
  const rules = value.rules.map((rule, index) => {
    try {
      return compileRule(rule, index)
    } catch (cause) {
      throw new E_INVALID_POLICY(`${where}: rules[${index}]${rule.name ? ` (${JSON.stringify(rule.name)})` : ''}: ${oneLine(errorSummary(cause).replace(/^E_INVALID_POLICY: /, ''))}`, {
        cause,
        details: { source, index },
      })
    }
  })
  return { defaultDecision: value.default ?? 'allow', rules }
}

function compileRule(rule: PermissionRule, index: number): CompiledRule {
  const tools = Array.isArray(rule.tool) ? [...rule.tool] : [rule.tool]
  const m = rule.match as Partial<PathMatch & CommandMatch & PredicateMatch> | undefined
  const match: CompiledMatch =
    m?.paths !== undefined
      ? { kind: 'paths', globs: m.paths.map((p) => new PathGlob(p)) }
      : m?.commands !== undefined
        ? commandMatch(m.commands.map((c) => new CommandPrefix(c)))
        : m?.when !== undefined
          ? { kind: 'when', when: m.when }
          : { kind: 'any' }
  const name = rule.name ?? summary(rule, tools)
  return Object.freeze({
    index,
    name,
    ref: Object.freeze({ index, name }),
    tools,
    decision: rule.decision,
    reason: rule.reason,
    match,
  })
}

function commandMatch(prefixes: CommandPrefix[]): CompiledCommandMatch {
  return { kind: 'commands', prefixes, executables: new Set(prefixes.map((prefix) => prefix.words[0]!)) }
}

/** `deny write .env*, secrets/**`: the name of a rule that has none. */
function summary(rule: PermissionRule, tools: readonly string[]): string {
  const m = rule.match as Partial<PathMatch & CommandMatch & PredicateMatch> | undefined
  const what = m?.paths?.join(', ') ?? m?.commands?.join(', ') ?? (m?.when ? '(predicate)' : undefined)
  return [rule.decision, tools.join('|'), what].filter((part) => part !== undefined).join(' ')
}

function ruleName(raw: unknown, index: number): string | undefined {
  const name = (raw as { rules?: { name?: unknown }[] } | null)?.rules?.[index]?.name
  return typeof name === 'string' ? name : undefined
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}
