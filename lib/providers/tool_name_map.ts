/**
 * `ToolNameMap`: maps tool names a provider would reject to legal ones, and
 * back, so a tool call the provider returns finds its tool again.
 *
 * @module
 */

/** The naming rule of one provider. */
export interface ToolNameRule {
  /** Provider id, for reports (`openai`, `anthropic`, `gemini`, `mcp`, `portable`). */
  readonly provider: string
  /** Whole-name pattern a legal name matches. */
  readonly pattern: RegExp
  /** Longest legal name. */
  readonly maxLength: number
  /** Characters allowed anywhere in a name (a one-character class). */
  readonly allowed: RegExp
  /** Characters allowed as the first character. */
  readonly allowedFirst: RegExp
}

/** The rules in {@link TOOL_NAME_RULES}, one per provider. */
export interface ToolNameRules {
  /** OpenAI Chat Completions and Responses. */
  readonly openai: ToolNameRule
  /** Anthropic Messages. */
  readonly anthropic: ToolNameRule
  /** Gemini function declarations. */
  readonly gemini: ToolNameRule
  /** Model Context Protocol. */
  readonly mcp: ToolNameRule
  /** Legal for all of the above at once (used for AI SDK record keys). */
  readonly portable: ToolNameRule
}

/** What `ToolNameMap.toJSON()` returns. */
export interface ToolNameMapJSON {
  /** The rule's provider id. */
  provider: string
  /** Every name that had to change. */
  renamed: ToolRename[]
}

/**
 * Every provider's documented tool-name rule, and `portable`, their
 * intersection: a name legal for OpenAI, Anthropic, Gemini and MCP at once.
 *
 * @remarks
 * - OpenAI (Chat Completions and Responses): `^[a-zA-Z0-9_-]{1,64}$`.
 * - Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
 * - Gemini: starts with a letter or `_`, then letters, digits, `_`, `.`, `:`
 *   or `-`; at most 63 characters (the older, stricter of the documented limits).
 * - MCP (SEP-986, as the SDK validates it): `^[A-Za-z0-9._-]{1,128}$`.
 */
export const TOOL_NAME_RULES: ToolNameRules = {
  openai: rule('openai', /[a-zA-Z0-9_-]/, /[a-zA-Z0-9_-]/, 64),
  anthropic: rule('anthropic', /[a-zA-Z0-9_-]/, /[a-zA-Z0-9_-]/, 64),
  gemini: rule('gemini', /[a-zA-Z0-9_.:-]/, /[a-zA-Z_]/, 63),
  mcp: rule('mcp', /[a-zA-Z0-9_.-]/, /[a-zA-Z0-9_.-]/, 128),
  portable: rule('portable', /[a-zA-Z0-9_-]/, /[a-zA-Z_]/, 63),
}

/** One name the map had to change. */
export interface ToolRename {
  /** The tool's own name. */
  readonly name: string
  /** The legal name the provider sees. */
  readonly providerName: string
}

/**
 * A two-way map between tool names and the names one provider sees.
 *
 * @remarks
 * A legal name is kept as is. An illegal one has every illegal character
 * replaced by `_`, gets a `_` prefix when its first character is illegal, is
 * cut to the provider's limit, and gets a `_2`, `_3`… suffix when the result
 * is already taken. Names given to the constructor are reserved first, so a
 * legal name never loses its spelling to a renamed one.
 *
 * @example
 * ```ts
 * const names = new ToolNameMap(TOOL_NAME_RULES.gemini, ['2fa', 'read'])
 * names.toProvider('2fa')      // '_2fa'
 * names.fromProvider('_2fa')   // '2fa'
 * names.renamed                // [{ name: '2fa', providerName: '_2fa' }]
 * ```
 */
export class ToolNameMap {
  /** The rule names are checked against. */
  readonly rule: ToolNameRule
  readonly #toProvider = new Map<string, string>()
  readonly #fromProvider = new Map<string, string>()

  /**
   * @param rule - The provider's rule, usually one of {@link TOOL_NAME_RULES}.
   * @param names - Names to map at once; legal ones are reserved before any illegal one is renamed.
   */
  constructor(rule: ToolNameRule, names: Iterable<string> = []) {
    this.rule = rule
    const list = [...names]
    for (const name of list) if (this.isLegal(name)) this.toProvider(name)
    for (const name of list) this.toProvider(name)
  }

  /**
   * Whether the provider accepts `name` as is.
   *
   * @param name - A tool name.
   * @returns True when `name` matches the rule.
   */
  isLegal(name: string): boolean {
    return this.rule.pattern.test(name)
  }

  /**
   * The name the provider sees for a tool, assigning one on first use.
   *
   * @param name - The tool's own name.
   * @returns A legal, unique provider name.
   */
  toProvider(name: string): string {
    const known = this.#toProvider.get(name)
    if (known !== undefined) return known
    const base = this.isLegal(name) && !this.#fromProvider.has(name) ? name : this.#legalize(name)
    let candidate = base
    for (let n = 2; this.#fromProvider.has(candidate); n++) {
      const suffix = `_${n}`
      candidate = base.slice(0, this.rule.maxLength - suffix.length) + suffix
    }
    this.#toProvider.set(name, candidate)
    this.#fromProvider.set(candidate, name)
    return candidate
  }

  /**
   * The tool name behind a name the provider returned in a tool call.
   *
   * @param providerName - The name in the provider's tool call.
   * @returns The tool's own name, or `undefined` for a name this map never issued.
   */
  fromProvider(providerName: string): string | undefined {
    return this.#fromProvider.get(providerName)
  }

  /** Every name that had to change, in the order it was mapped: the report of the mapping. */
  get renamed(): ToolRename[] {
    return [...this.#toProvider]
      .filter(([name, providerName]) => name !== providerName)
      .map(([name, providerName]) => ({ name, providerName }))
  }

  /**
   * A JSON view for logs.
   *
   * @returns `{ provider, renamed }`.
   */
  toJSON(): ToolNameMapJSON {
    return { provider: this.rule.provider, renamed: this.renamed }
  }

  #legalize(name: string): string {
    const chars = [...name].map((c) => (this.rule.allowed.test(c) ? c : '_'))
    let legal = chars.join('')
    if (legal.length === 0 || !this.rule.allowedFirst.test(legal[0]!)) legal = `_${legal}`
    return legal.slice(0, this.rule.maxLength)
  }
}

function rule(provider: string, allowed: RegExp, allowedFirst: RegExp, maxLength: number): ToolNameRule {
  const body = allowed.source.slice(1, -1)
  const first = allowedFirst.source.slice(1, -1)
  return {
    provider,
    allowed,
    allowedFirst,
    maxLength,
    pattern: new RegExp(`^[${first}][${body}]{0,${maxLength - 1}}$`),
  }
}
