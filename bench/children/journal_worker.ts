/**
 * One bench process for the journal scale figure: `runners` TurnRunners,
 * side by side in this process, each making `calls` non-idempotent calls on
 * the given journal; prints the per-call claim and outcome latencies.
 * Once loaded and connected it prints `ready` and waits for a line on stdin,
 * so that several workers start their calls together (their start-up, a
 * second or more of CPU each under tsx, is not part of the figure).
 *
 *   node --import tsx bench/children/journal_worker.ts <pg|sqlite> <url|file> <runners> <calls> <runPrefix>
 *
 * @module
 */
import { performance } from 'node:perf_hooks'
import { PostgresJournal, SqliteJournal, Tool, TurnRunner, scriptedModel, validator, type ClaimingJournal } from '../../lib/index.js'

const [kind, target, runnersArg, callsArg, prefix] = process.argv.slice(2) as [string, string, string, string, string]
const runners = Number(runnersArg)
const calls = Number(callsArg)

const inner: ClaimingJournal & { close(): unknown } = kind === 'pg' ? new PostgresJournal(target, { maxConnections: Math.max(2, runners) }) : new SqliteJournal(target)
const claimMs: number[] = []
const completeMs: number[] = []
async function timedInto<T>(into: number[], op: () => Promise<T>): Promise<T> {
  const t0 = performance.now()
  try {
    return await op()
  } finally {
    into.push(performance.now() - t0)
  }
}
// The journal as the runner sees it, with the two calls each claimed call adds timed.
const journal: ClaimingJournal = {
  maxOutputBytes: inner.maxOutputBytes,
  record: (row, flags) => inner.record(row, flags),
  list: (filter) => inner.list(filter),
  sideEffectsFor: (scope) => inner.sideEffectsFor(scope),
  claim: (request) => timedInto(claimMs, () => inner.claim(request)),
  renew: (key, owner, lease) => inner.renew(key, owner, lease),
  takeOver: (key, from, to, lease) => inner.takeOver(key, from, to, lease),
  complete: (key, owner, row, flags) => timedInto(completeMs, () => inner.complete(key, owner, row, flags)),
  release: (key, owner) => inner.release(key, owner),
  getClaim: (key) => inner.getClaim(key),
  saveTurn: (checkpoint) => inner.saveTurn(checkpoint),
  loadTurn: (runId, scope) => inner.loadTurn(runId, scope),
}

const tick = new Tool({
  name: 'tick',
  description: 'A trivial non-idempotent side effect',
  inputSchema: validator.object({ n: validator.number().required() }),
  sideEffect: true,
  idempotent: false,
  handler: async ({ n }: { n: number }, _ctx, _meta, _call) => `tick ${n}`,
})

// Connect (and check the tables) before the barrier: the first call should
// not pay for the TCP and authentication handshake.
await inner.list({ runId: '(warm-up)' })
process.stdout.write('ready\n')
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()))
process.stdin.pause()
const startedAt = Date.now()
await Promise.all(
  Array.from({ length: runners }, (_, r) =>
    new TurnRunner({
      model: scriptedModel([{ toolCalls: Array.from({ length: calls }, (_, n) => ({ id: `t${n}`, name: 'tick', args: { n } })) }, { text: 'done' }]),
      tools: [tick],
      journal,
      identity: { runId: `${prefix}-${process.pid}-${r}`, nodeId: 'bench', iteration: 0, attempt: 1 },
    }).run('tick'),
  ),
)
const endedAt = Date.now()
await inner.close()
process.stdout.write(`${JSON.stringify({ startedAt, endedAt, claimMs, completeMs })}\n`)
