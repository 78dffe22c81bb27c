/**
 * Argument roles: what a tool declares about its arguments so a permission
 * gate knows what to judge (which argument is a path, which the command).
 *
 * @module
 */
import { E_INVALID_INITIAL_TOOL_VALUE } from '../exceptions.js'
import { validator, type ObjectSchema, type Schema } from '../validation.js'

/**
 * Which of a tool's arguments a permission gate judges, by role. Each value
 * names an argument of the tool's input schema; a dotted name reaches into an
 * object argument (`'opts.cwd'`).
 *
 * @remarks
 * Path rules (`match.paths`) judge the `path` or `searchRoot` argument;
 * command rules (`match.commands`) judge `command` with `commandArgs`, and
 * consider `workingDirectory`. A tool that declares no role a rule needs is
 * not judged by that rule when the rule is for every tool (`tool: '*'`), and
 * fails closed when the rule names it (its `deny` and `ask` rules match every
 * call, its `allow` rules none): a policy that names a tool meant the rule
 * to hold for it.
 *
 * @example
 * ```ts
 * const upload = new Tool({
 *   name: 'upload',
 *   description: 'Upload a file of the project',
 *   inputSchema: validator.object({ file: validator.string().required(), bucket: validator.string().required() }),
 *   roles: { path: 'file' },
 *   handler: async ({ file, bucket }) => { … },
 * })
 * ```
 */
export interface ArgumentRoles {
  /** A string argument naming the one file or folder the call acts on: path rules judge where it resolves. */
  readonly path?: string
  /**
   * A string argument naming a folder searched below (or one file), as
   * `grep`'s `path`: path rules judge it, and a `deny` or `ask` rule about
   * anything below the folder counts too. Not with `path`.
   */
  readonly searchRoot?: string
  /** A string argument naming the program to run: command rules judge it, with `commandArgs`. */
  readonly command?: string
  /** An array-of-strings argument: the program's arguments. Needs `command`. */
  readonly commandArgs?: string
  /**
   * A string argument naming the folder the command starts in (relative to
   * the root): when set to another folder than the root, an allow rule for a
   * root-relative program path (`bin/x`) does not cover the call. Needs `command`.
   */
  readonly workingDirectory?: string
}

/** Every role, with the joi type its argument must have. */
const ARGUMENT_TYPE: Readonly<Record<keyof ArgumentRoles, 'string' | 'array'>> = {
  path: 'string',
  searchRoot: 'string',
  command: 'string',
  commandArgs: 'array',
  workingDirectory: 'string',
}

const argumentName = (): Schema =>
  validator
  .string()
  .pattern(/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*$/)
  .rule({ message: { 'string.pattern.base': '{#label} must name an argument of the input schema (a dotted name reaches into an object: "opts.cwd"), got {#value}' } })

/**
 * The joi schema of {@link ArgumentRoles} (the shape only; which arguments
 * exist is checked against the input schema by {@link checkArgumentRoles}).
 *
 * Built by the tool definition schema's first use.
 *
 * @returns A new schema.
 * @internal
 */
// Relations between roles are checked by checkArgumentRoles in code: joi's
// `.messages()` would load its meta-schemas, which the kit never does.
export function argumentRolesSchema(): ObjectSchema<ArgumentRoles> {
  return validator
    .object<ArgumentRoles>(Object.fromEntries(Object.keys(ARGUMENT_TYPE).map((role) => [role, argumentName()])))
    .unknown(false) as unknown as ObjectSchema<ArgumentRoles>
}

/**
 * Check declared roles against the tool's input schema: every role names an
 * argument the schema has, of the type the role needs.
 *
 * @param toolName - The tool's name, for messages.
 * @param roles - The roles, shape already validated.
 * @param inputSchema - The tool's joi object schema, or the JSON Schema of its Standard Schema.
 * @returns The roles, as a frozen copy.
 * @throws {@link toolsmith/core!E_INVALID_INITIAL_TOOL_VALUE} naming the role and the argument.
 * @internal
 */
export function checkArgumentRoles(toolName: string, roles: ArgumentRoles, inputSchema: ObjectSchema | Record<string, unknown>): Readonly<ArgumentRoles> {
  const invalid = (why: string): E_INVALID_INITIAL_TOOL_VALUE => new E_INVALID_INITIAL_TOOL_VALUE(`Invalid tool definition: "roles" of tool "${toolName}": ${why}`)
  if (roles.path !== undefined && roles.searchRoot !== undefined) {
    throw invalid('give "path" or "searchRoot", not both: a tool has one path argument the gate judges')
  }
  for (const role of ['commandArgs', 'workingDirectory'] as const) {
    if (roles[role] !== undefined && roles.command === undefined) throw invalid(`"${role}" needs "command": it describes the command a command rule judges`)
  }
  const copy: Record<string, string> = {}
  for (const role of Object.keys(ARGUMENT_TYPE) as (keyof ArgumentRoles)[]) {
    const name = roles[role]
    if (name === undefined) continue
    const joi = validator.isSchema(inputSchema)
    const argument = joi ? argumentSchema(inputSchema as ObjectSchema, name) : jsonArgument(inputSchema, name)
    if (argument === undefined) {
      // Described only here, for the message: describe() loads joi's meta-schemas.
      const names = Object.keys((joi ? (inputSchema as ObjectSchema).describe().keys : inputSchema.properties) ?? {})
      throw invalid(`"${role}" names the argument ${JSON.stringify(name)}, which the input schema does not have (its arguments: ${names.join(', ') || 'none'}); name an argument of the schema`)
    }
    const wanted = ARGUMENT_TYPE[role]
    if (argument.type !== wanted) {
      throw invalid(`"${role}" names ${JSON.stringify(name)}, a ${argument.type} argument; the ${role} role needs ${wanted === 'array' ? 'an array (of strings)' : 'a string'} argument`)
    }
    copy[role] = name
  }
  return Object.freeze(copy) as Readonly<ArgumentRoles>
}

/** A (dotted) argument's JSON Schema `type`, as joi names types (`integer` is a number), or `undefined` when absent. */
function jsonArgument(schema: Record<string, unknown>, name: string): { type: string } | undefined {
  let current: unknown = schema
  for (const key of name.split('.')) {
    const properties = (current as { properties?: unknown } | undefined)?.properties
    if (typeof properties !== 'object' || properties === null || !Object.hasOwn(properties, key)) return undefined
    current = (properties as Record<string, unknown>)[key]
  }
  const type = (current as { type?: unknown }).type
  return { type: type === 'integer' ? 'number' : typeof type === 'string' ? type : 'any' }
}

/** The schema of a (dotted) argument, or `undefined` when the input schema has none. */
function argumentSchema(inputSchema: ObjectSchema, name: string): Schema | undefined {
  let current: Schema = inputSchema
  for (const key of name.split('.')) {
    if (current.type !== 'object') return undefined
    try {
      // joi asserts that the key exists.
      current = current.extract(key)
    } catch {
      return undefined
    }
  }
  return current
}

/**
 * The value of a (dotted) argument in validated args; `undefined` when absent.
 *
 * @param args - The validated args.
 * @param name - The argument's name, as a role gives it.
 * @returns Its value.
 */
export function argumentValue(args: unknown, name: string): unknown {
  if (!name.includes('.')) return (args as Record<string, unknown> | null | undefined)?.[name]
  let value: unknown = args
  for (const key of name.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}
