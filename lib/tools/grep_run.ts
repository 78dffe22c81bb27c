/**
 * What a `grep` call does: the target and ignore rules checked, ripgrep run
 * (jailed where it can be), its output fitted to the limit. Loaded by the
 * first call (see `loadGrepRun` in `grep.ts`).
 *
 * @module
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { E_TOOL_FILE_NOT_FOUND, E_TOOL_GREP_FAILED } from '../exceptions.js'
import type { ToolCallInfo } from '../core/tool.js'
import { buildSandboxEnv } from '../sandbox/process/environment.js'
import { headBoundary, truncationMarker } from '../sandbox/process/capture.js'
import { resolveInRoot, type ResolvedPath } from '../sandbox/files/paths.js'
import { assertAsJudged, judgedPathIn } from '../sandbox/files/judged_path.js'
import { runBounded, type BoundedRunResult } from '../sandbox/process/process.js'
import { jailFor, jailedCommand } from '../sandbox/os/search_jail.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { linkSignals } from '../utils/linked_signal.js'
import { rememberRules, rememberedRules, scanIgnoreRules } from './grep_ignore.js'
import { dropOtherNames } from './grep_links.js'
import { assertSearchable, hostPathOf, openTarget, type SearchTarget } from './grep_target.js'
import { onLocalFileSystem, runJailedOrChecked, trustworthy } from './grep_walk_check.js'
import type { GrepArgs } from './builtin_args.js'

let rgPathPromise: Promise<string> | undefined

/** Loaded on first use: importing `@vscode/ripgrep` resolves the platform binary. */
async function ripgrepPath(): Promise<string> {
  rgPathPromise ??= import('@vscode/ripgrep').then((module) => module.rgPath)
  return await rgPathPromise
}

/**
 * The exact argument list `grep` passes to ripgrep.
 *
 * @param pattern - The regular expression.
 * @param target - The path to search.
 * @param ignoreFile - The rules file built from the ignore files inside the root, if there are rules.
 * @param nullAfterPath - End printed paths with NUL (`--null`), for output whose paths are checked afterwards.
 * @returns `--no-config --no-ignore [--ignore-file RULES] -n -H --no-heading -e PATTERN -- PATH`.
 * @internal
 */
export function ripgrepArgs(pattern: string, target: string, ignoreFile?: string, nullAfterPath = false): string[] {
  // --no-ignore: rg reads no ignore file by itself (it would follow symlinks and read the
  // root's ancestors); the rules of the root's own ignore files come in --ignore-file.
  const rules = ignoreFile === undefined ? [] : ['--ignore-file', ignoreFile]
  const paths = nullAfterPath ? ['--null'] : []
  return ['--no-config', '--no-ignore', ...rules, '-n', '-H', '--no-heading', ...paths, '-e', pattern, '--', target]
}

/** A search ready to run: where rg looks, its rules file, and the scratch directory to remove after it. */
interface PreparedSearch {
  target: SearchTarget
  ignoreFile: string | undefined
  scratch: string | undefined
}

/** The rules for a search of `resolved`: `''` for a file (rg searches a named file whatever the rules say). */
async function scanRules(resolved: ResolvedPath, target: SearchTarget, sandbox: Sandbox, signal: AbortSignal): Promise<string> {
  if (!resolved.stats!.isDirectory()) return ''
  const rules = await scanIgnoreRules({
    root: resolved.root,
    relative: resolved.relative,
    directory: target.handle === undefined ? undefined : `/proc/self/fd/${target.handle.fd}`,
    deadline: Date.now() + sandbox.timeoutMs,
    timeoutMs: sandbox.timeoutMs,
    signal,
  })
  // Last, so that no `!` line of an ignore file in the root can bring an unreadable path back.
  return rules + sandbox.credentials.ignoreRules(resolved)
}

/**
 * Write `rules` where rg reads them (`--ignore-file`).
 *
 * The rules name paths from the root, so rg must see the searched directory
 * under its root-relative path: for a subdirectory searched through its
 * descriptor, a scratch directory holds `tree/<relative path>` as a symlink to
 * `/proc/<pid>/fd/N` (rg follows a symlink given as the path to search) and
 * rg runs in `tree`; its printed paths are then root-relative as they are.
 */
async function prepareSearch(resolved: ResolvedPath, target: SearchTarget, rules: string): Promise<PreparedSearch> {
  if (rules === '') return { target, ignoreFile: undefined, scratch: undefined }
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolsmith-grep-'))
  try {
    const ignoreFile = path.join(scratch, 'rules')
    await writeFile(ignoreFile, rules, { mode: 0o600 })
    const hostPaths: [string, string][] = [...target.hostPaths, [ignoreFile, 'ignore rules'], [scratch, '.']]
    if (target.handle === undefined || resolved.relative === '.') {
      return { target: { ...target, hostPaths }, ignoreFile, scratch }
    }
    const tree = path.join(scratch, 'tree')
    const link = path.join(tree, resolved.relative)
    const fdPath = `/proc/${process.pid}/fd/${target.handle.fd}`
    await mkdir(path.dirname(link), { recursive: true })
    await symlink(fdPath, link)
    hostPaths.push([fdPath, resolved.relative])
    return {
      target: { cwd: tree, path: resolved.relative, handle: target.handle, unprefix: (text) => text, lineDelta: 0, hostPaths },
      ignoreFile,
      scratch,
    }
  } catch (error) {
    await rm(scratch, { recursive: true, force: true })
    throw error
  }
}

async function removeScratch(search: PreparedSearch | undefined): Promise<void> {
  if (search?.scratch !== undefined) await rm(search.scratch, { recursive: true, force: true }).catch(() => undefined)
}

/** A search and the rg run over it: the run settles with its result or its error, never unhandled. */
interface Searched {
  search: PreparedSearch
  result: BoundedRunResult
}

/**
 * Gather the rules and run rg with them. When an earlier search of the same
 * directory left its rules, rg starts at once with those while the ignore
 * files are read again (the scan costs ≈ 10% of a search of a large tree,
 * and ripgrep's own walk needs the CPU less than the scan needs the
 * syscalls); if the rules read now differ, that run is killed and waited
 * for, and rg runs again with them. Either way the output returned is that
 * of a run with the rules as they are now.
 */
async function searchWithRules(
  resolved: ResolvedPath,
  target: SearchTarget,
  sandbox: Sandbox,
  signal: AbortSignal,
  run: (search: PreparedSearch, signal: AbortSignal) => Promise<BoundedRunResult>,
  onSearch: (search: PreparedSearch) => void,
): Promise<Searched> {
  const key = resolved.stats!.isDirectory() ? `${resolved.root}\0${resolved.relative}` : undefined
  const guess = key === undefined ? undefined : rememberedRules(key)
  if (guess === undefined) {
    const rules = await scanRules(resolved, target, sandbox, signal)
    if (key !== undefined) rememberRules(key, rules)
    const search = await prepareSearch(resolved, target, rules)
    onSearch(search)
    return { search, result: await run(search, signal) }
  }
  const early = await prepareSearch(resolved, target, guess)
  const stop = new AbortController()
  const link = linkSignals([signal, stop.signal])
  // Attached at once: the run may fail (spawn error, abort) while the scan runs.
  const running = run(early, link.signal).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  )
  let rules: string
  try {
    rules = await scanRules(resolved, target, sandbox, signal)
  } catch (error) {
    stop.abort()
    await running
    link.release()
    await removeScratch(early)
    throw error
  }
  rememberRules(key!, rules)
  if (rules === guess) {
    onSearch(early)
    const outcome = await running
    link.release()
    if ('error' in outcome) throw outcome.error
    return { search: early, result: outcome.result }
  }
  stop.abort()
  await running
  link.release()
  await removeScratch(early)
  const search = await prepareSearch(resolved, target, rules)
  onSearch(search)
  return { search, result: await run(search, signal) }
}

/**
 * rg's error output as a message: lines about the rules file dropped (rg
 * skips a glob it cannot parse and carries on, and the glob came from an
 * ignore file inside the root), host paths replaced.
 */
function errorText(stderr: string, search: PreparedSearch): string {
  const kept = stderr
    .split('\n')
    .filter((line) => search.ignoreFile === undefined || !line.includes(search.ignoreFile))
    .join('\n')
  let text = search.target.unprefix(kept.trim())
  for (const [hostPath, shown] of search.target.hostPaths) text = text.split(hostPath).join(shown)
  return text
}

/** The marker a head capture ends with (no line break after it). */
const TRAILING_MARKER = /\n\[… (\d+) bytes truncated …\]$/

/**
 * rg's output with its truncation marker counting what was left out as the
 * model would have seen it: every omitted line's path is rewritten too
 * (`lineDelta` bytes each), so the raw byte count is off by that much per line.
 */
function shownOmitted(output: string, totalLines: number | undefined, lineDelta: number): string {
  const marked = TRAILING_MARKER.exec(output)
  if (marked === null || totalLines === undefined || lineDelta === 0) return output
  const kept = output.slice(0, marked.index + 1)
  let keptLines = 0
  for (let at = kept.indexOf('\n'); at !== -1; at = kept.indexOf('\n', at + 1)) keptLines++
  const omitted = Number(marked[1]) + Math.max(0, totalLines - keptLines) * lineDelta
  return `${kept.slice(0, -1)}${truncationMarker(Math.max(0, omitted)).trimEnd()}`
}

/**
 * Keep rewritten output within `limit` bytes: rewriting paths may lengthen
 * lines, so cut again at a line end, folding any marker rg's capture added.
 */
function fitLines(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text
  const marked = TRAILING_MARKER.exec(text)
  // With a marker, the line break before it is already in its count: not in the body.
  const body = Buffer.from(marked === null ? text : text.slice(0, marked.index))
  const omitted = marked === null ? 0 : Number(marked[1])
  // Room for the marker with the largest count it could carry.
  const markerRoom = Buffer.byteLength(truncationMarker(body.length + omitted).trimEnd())
  const room = limit - markerRoom
  if (room <= 0) return truncationMarker(body.length + omitted).trim()
  // Cut at the last line end that fits (the line break itself is dropped);
  // when not even the first line fits, keep its start, cut on a character.
  const lineEnd = body.lastIndexOf(0x0a, room)
  const end = lineEnd > 0 ? lineEnd : headBoundary(body, room)
  return `${body.subarray(0, end).toString('utf8')}${truncationMarker(body.length - end + omitted).trimEnd()}`
}

/**
 * The `grep` tool's handler, as a function of its sandbox: what
 * `GrepTool` runs after validation.
 *
 * @param sandbox - The sandbox whose root and limits apply.
 * @param args - Validated args.
 * @param call - The call (its abort signal is honoured).
 * @returns The tool's result text.
 * @internal
 */
export async function grepHandler(sandbox: Sandbox, { pattern, path = '.' }: GrepArgs, call: ToolCallInfo): Promise<string> {
  // A permission gate's judged path (if any): the search covers exactly that directory or file.
  const judged = await judgedPathIn(call, 'path', path, sandbox)
  const resolved = await resolveInRoot(sandbox, path)
  sandbox.credentials.assertAllowed(resolved, 'grep')
  assertAsJudged(judged, resolved)
  if (resolved.stats === undefined) {
    throw new E_TOOL_FILE_NOT_FOUND(`${JSON.stringify(path)} does not exist; give a directory or file inside the sandbox root`, {
      details: { path },
    })
  }
  // A FIFO, socket or device: rg would block on it (or read a device), so refuse before spawning.
  assertSearchable(resolved, resolved.stats)
  const target = await openTarget(resolved, judged)
  // Under a policy that can refuse paths, a directory search must not show
  // files that have other names (hard links): only this directory was judged.
  const linksChecked = judged?.singleName === true && resolved.stats.isDirectory()
  const shown = (output: string): string => {
    if (!linksChecked) return search!.target.unprefix(output)
    const { text, note } = dropOtherNames(output, (printed) => hostPathOf(printed, resolved, target))
    const unprefixed = search!.target.unprefix(text)
    if (note === undefined) return fitLines(unprefixed, sandbox.maxOutputBytes)
    // The note is kept whatever the cut: room is made for it first.
    const fitted = fitLines(unprefixed, Math.max(0, sandbox.maxOutputBytes - Buffer.byteLength(note) - 2))
    return `${fitted}${fitted === '' || fitted.endsWith('\n') ? '' : '\n'}${note}\n`
  }
  let search: PreparedSearch | undefined
  try {
    const file = await ripgrepPath()
    const env = buildSandboxEnv(process.env, sandbox.env)
    // A directory is walked by rg, by path: in the jail (where bubblewrap
    // runs) nothing but that directory exists, so a folder swapped for a
    // symlink during the walk cannot lead outside. The jail costs a bwrap
    // start, so on a local file system rg first runs unconfined and the
    // jail is used only when the walk cannot be shown unchanged afterwards
    // (grep_walk_check). A file is opened once, through its held
    // descriptor: no walk, no jail needed.
    const held = resolved.stats.isDirectory() ? target.handle : undefined
    const jail = held === undefined ? undefined : await jailFor(file)
    const checkable = jail !== undefined && onLocalFileSystem(held!.fd)
    const startedAt = Date.now()
    const launch = (prepared: PreparedSearch, jailed: boolean): { file: string; args: string[]; passFd?: number } => {
      const args = ripgrepArgs(pattern, prepared.target.path, prepared.ignoreFile, linksChecked)
      if (!jailed || jail === undefined || prepared.target.handle === undefined) return { file, args }
      const files = prepared.ignoreFile === undefined ? [] : [prepared.ignoreFile]
      return { ...jailedCommand(jail, { program: file, args, below: prepared.target.path, files }), passFd: prepared.target.handle.fd }
    }
    const hostPath = (printed: string): string => hostPathOf(printed, resolved, target)
    const run = (prepared: PreparedSearch, signal: AbortSignal, jailed = !checkable): Promise<BoundedRunResult> =>
      runJailedOrChecked(jailed || !checkable, held?.fd, hostPath, startedAt, () => runBounded({
        ...launch(prepared, jailed),
        cwd: prepared.target.cwd,
        env,
        // Filtered output loses lines, and rewritten paths can be shorter
        // than rg's ("./", "/proc/<pid>/fd/N"): capture more, so what is
        // kept can still fill the limit (fitLines cuts it to the limit).
        maxOutputBytes: linksChecked || prepared.target.lineDelta < 0 ? 2 * sandbox.maxOutputBytes : sandbox.maxOutputBytes,
        timeoutMs: sandbox.timeoutMs,
        signal,
        mergeStderr: false,
        mode: 'head',
        label: 'grep',
        // rg with these arguments never starts another program: no --pre,
        // --search-zip or --hostname-bin, and --no-config keeps them out.
        // In the jail, bwrap's child is rg itself, in bwrap's group.
        singleProcess: true,
        // For the marker's count in shown bytes (see shownOmitted).
        countLines: !linksChecked,
      }))
    const searched = await searchWithRules(resolved, target, sandbox, call.signal, run, (prepared) => {
      search = prepared
    })
    if (checkable && !trustworthy(searched.result, held!.fd, hostPath, startedAt)) {
      searched.result = await run(searched.search, call.signal, true)
    }
    const result = searched.result
    if (result.exitCode === 1 && result.outputBytes === 0) return ''
    if (result.exitCode !== 0) {
      const stderr = errorText(result.stderr, searched.search)
      const message = stderr || `rg exited with code ${result.exitCode ?? result.signal}`
      throw new E_TOOL_GREP_FAILED(`grep failed: ${message}`, {
        details: { exitCode: result.exitCode, signal: result.signal, output: shown(result.output), stderr },
      })
    }
    if (linksChecked) return shown(result.output)
    return fitLines(shown(shownOmitted(result.output, result.outputLines, searched.search.target.lineDelta)), sandbox.maxOutputBytes)
  } finally {
    // rg has exited: nothing needs the descriptor or the rules any more.
    void target.handle?.close().catch(() => undefined)
    await removeScratch(search)
  }
}
