/**
 * What the permission policy works with: how paths are resolved for it, a
 * call as it sees it, and what it says.
 *
 * @module
 */
import type { ArgumentRoles } from '../core/argument_roles.js'
import type { CompiledRule, PermissionCallInfo, PermissionDecision } from './rules.js'

/**
 * Where a path argument lands, as the policy sees it: root-relative, after
 * `..` and symlinks; `undefined` when it cannot be resolved inside the root.
 */
export interface ResolvedSubjectPath {
  /** Root-relative, `/`-separated; `.` for the root. */
  readonly relative: string
  /** Whether it is an existing directory (rules about what lies below then count too). */
  readonly isDirectory: boolean
  /**
   * How many names (hard links) it has, when it is a regular file with more
   * than one: a rule sees only this name, so such a path cannot be judged
   * (it matches every `deny` and `ask` path rule and no `allow` one).
   */
  readonly hardLinks?: number | undefined
}

/** How the policy resolves path arguments and checks that a path exists (supplied by `Permissions`). */
export interface PathResolver {
  /**
   * Resolve a path argument; `undefined` when it escapes the root or is
   * invalid. May answer without a promise (then the call is judged without one).
   */
  resolve(input: string): ResolvedSubjectPath | undefined | Promise<ResolvedSubjectPath | undefined>
  /** Whether a root-relative path exists. */
  exists(relative: string): Promise<boolean>
  /**
   * For one call: a function from a bare command name to the root-relative
   * path of the program `PATH` finds for it, when that lies inside the root
   * (see `root_programs.ts`); `undefined` when no lookup is done.
   */
  programs?(): ((name: string) => string | undefined) | undefined
}

/** A call as the policy sees it. */
export interface PolicyCall extends PermissionCallInfo {
  /** The validated args. */
  readonly args: unknown
  /** The tool's argument roles: which argument path rules and command rules judge (none when absent). */
  readonly roles?: Readonly<ArgumentRoles> | undefined
}

/** What the policy says about a call. */
export interface PolicyVerdict {
  /** The decision. */
  readonly decision: PermissionDecision
  /** The deciding rule; `undefined` when none matched (the default applies). */
  readonly rule: CompiledRule | undefined
  /** What the call acts on, for messages: the resolved path or the command line. */
  readonly subject: string | undefined
}

/**
 * What `evaluate` says: a verdict, and the call's path as resolved (`null`
 * when it has none or no path rule applies, `undefined` when it does not
 * resolve inside the root).
 *
 * @internal
 */
export interface Evaluation extends PolicyVerdict {
  /** The resolved path argument, as the resolver returned it. */
  readonly path: ResolvedSubjectPath | undefined | null
  /** Whether the tool's path rules can refuse a path (see `Plan.guardsLinks`): the handler must then refuse a file with other names. */
  readonly guardsLinks: boolean
  /**
   * Why the call's commands cannot be known (a computed command word, a
   * program running code of its own), when a command rule decided it
   * because of that: the denial says so.
   */
  readonly unknowable: string | undefined
  /** The name of the argument `path` was resolved from (the tool's `path` or `searchRoot` role). */
  readonly pathArgument: string | undefined
  /**
   * The role (`path` or `command`) the deciding rule needed and the tool does
   * not declare, when the rule names the tool and so matched because of
   * that (see `ArgumentRoles`): the denial says so.
   */
  readonly undeclared: string | undefined
}
