/**
 * How the permission gate resolves a call's path argument (with the
 * sandbox's own resolution), and what it hands the handler of an allowed
 * run: the judged path, on the call.
 *
 * @module
 */
import path from 'node:path'
import { lstat } from 'node:fs/promises'
import { realpathSync } from 'node:fs'
import { JudgedPath } from '../sandbox/files/judged_path.js'
import { resolveInRoot, resolveInRootSync, type PathScope, type ResolvedPath } from '../sandbox/files/paths.js'
import type { Evaluation, PathResolver, ResolvedSubjectPath } from './policy_types.js'
import { rootProgramLookup } from './root_programs.js'

/**
 * What the gate judged of an allowed call, for the handler of this run
 * (`call.verdict.judged`, keyed by the argument's name): the handler then
 * acts on exactly that file or refuses (a symlink or directory swapped in
 * meanwhile, a file that got another name). Given for a missing path too,
 * and after an approval (its `stats` may be old then; handlers use the
 * resolution's paths, and look at the file itself through what they open).
 *
 * @param verdict - The policy's verdict.
 * @param approved - Whether an approver allowed the call.
 * @returns The judged paths by argument name, or `undefined` when none was judged.
 */
export function judgedOf(verdict: Evaluation, approved: boolean): ReadonlyMap<string, object> | undefined {
  const subjectPath = verdict.path
  const argument = verdict.pathArgument
  if (!(subjectPath instanceof SubjectPath) || argument === undefined) return undefined
  const stats = subjectPath.resolution.stats
  if (approved && subjectPath.hardLinks !== undefined && stats !== undefined) {
    // The approver was told this file has several names and allowed it: this file, and no other.
    return new Map([[argument, new JudgedPath(subjectPath.resolution, false, { dev: stats.dev, ino: stats.ino })]])
  }
  return new Map([[argument, new JudgedPath(subjectPath.resolution, verdict.guardsLinks)]])
}

/** A resolved path argument that keeps the sandbox's full resolution, to hand to the handler. */
class SubjectPath implements ResolvedSubjectPath {
  readonly relative: string
  readonly isDirectory: boolean
  readonly hardLinks: number | undefined
  readonly resolution: ResolvedPath

  constructor(resolution: ResolvedPath) {
    this.relative = path.sep === '/' ? resolution.relative : resolution.relative.split(path.sep).join('/')
    const stats = resolution.stats
    this.isDirectory = stats?.isDirectory() === true
    this.hardLinks = stats !== undefined && stats.nlink > 1 && stats.isFile() ? stats.nlink : undefined
    this.resolution = resolution
  }
}

/**
 * Resolve path arguments with the sandbox's own resolution (`..` collapsed,
 * symlinks followed and checked): synchronously once the real root is known
 * and no symlink is on the way (most calls: no promise, so an allowed call
 * is not awaited), else through the full asynchronous resolution.
 */
export function pathResolver(scope: PathScope, knownRoot: () => string | undefined): PathResolver {
  const resolveFully = async (input: string): Promise<ResolvedSubjectPath | undefined> => {
    try {
      return new SubjectPath(await resolveInRoot(scope, input))
    } catch {
      return undefined
    }
  }
  let programsRoot: string | undefined
  return {
    resolve(input: string): ResolvedSubjectPath | undefined | Promise<ResolvedSubjectPath | undefined> {
      const root = knownRoot()
      if (root === undefined) return resolveFully(input)
      let resolved: ResolvedPath | undefined
      try {
        resolved = resolveInRootSync(scope, root, input)
      } catch {
        return undefined
      }
      return resolved === undefined ? resolveFully(input) : new SubjectPath(resolved)
    },
    async exists(relative: string): Promise<boolean> {
      try {
        await lstat(path.join(await scope.realRoot(), ...relative.split('/')))
        return true
      } catch {
        return false
      }
    },
    programs() {
      // The PATH the bash tool passes on (its environment allow-lists the host's PATH).
      // Kept once known, as the scope keeps it (a burst of calls may come before its promise settles).
      let root = knownRoot() ?? programsRoot
      if (root === undefined) {
        try {
          root = programsRoot = realpathSync.native(scope.rootDir)
        } catch {
          return undefined
        }
      }
      // Without one it gets the system's folders only: nothing of the root.
      return process.env.PATH === undefined ? undefined : rootProgramLookup(root, process.env.PATH)
    },
  }
}
