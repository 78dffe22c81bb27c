/**
 * A vitest reporter that fails the run when a spec file's tests never
 * finished: the worker process running them died (SIGKILL, the OOM killer, a
 * stray group kill, `process.exit` from a timer) or never reported back.
 *
 * vitest 4 already exits non-zero on such a loss, but only through a generic
 * "Worker exited unexpectedly" unhandled error that names no file, and the
 * file's tests appear in no pass/fail count. This reporter names each file and
 * how many of its tests were lost, and sets the exit code itself, so the run
 * fails even if unhandled errors are ever ignored (`dangerouslyIgnoreUnhandledErrors`).
 * It is registered in vitest.config.ts; `--reporter` on the command line
 * replaces the configured reporters, so pass it again there if you use one.
 */
import type { Reporter, TestModule, TestSpecification } from 'vitest/node'

/** One spec file whose tests did not all finish. */
interface Loss {
  file: string
  why: string
}

export default class LostWorkerReporter implements Reporter {
  #started = new Set<string>()

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.#started = new Set(specifications.map((s) => s.moduleId))
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, _errors: unknown, reason: 'passed' | 'interrupted' | 'failed'): void {
    // Ctrl-C or --bail stops files on purpose: unfinished tests are expected then.
    if (reason === 'interrupted') return
    const losses: Loss[] = []
    const seen = new Set<string>()
    for (const module of testModules) {
      seen.add(module.moduleId)
      const file = module.relativeModuleId
      const state = module.state()
      // A test still "pending" after the run was collected but never reported a result.
      const unfinished = [...module.children.allTests()].filter((test) => test.result().state === 'pending')
      if (unfinished.length > 0) {
        const names = unfinished.slice(0, 3).map((test) => `"${test.fullName}"`).join(', ')
        losses.push({ file, why: `${unfinished.length} test(s) never reported a result: ${names}${unfinished.length > 3 ? ', …' : ''}` })
      } else if (state === 'queued' || state === 'pending') {
        losses.push({ file, why: `the file never finished (state "${state}")` })
      }
    }
    for (const moduleId of this.#started) {
      if (!seen.has(moduleId)) losses.push({ file: moduleId, why: 'the file was scheduled but never reported' })
    }
    if (losses.length === 0) return
    const lines = losses.map((loss) => `  ${loss.file}: ${loss.why}`)
    process.stderr.write(
      `\nLOST TEST WORKER: ${losses.length} spec file(s) did not report all their tests; their worker process died or exited early.\n${lines.join('\n')}\nThe run fails: rerun the file(s) alone to see why the worker died.\n`,
    )
    process.exitCode = 1
  }
}
