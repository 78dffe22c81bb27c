/**
 * Permission policy overhead: a call through `executor(ctx)` with a
 * 200-rule policy on the context, against the same call with no policy.
 * Target (issue 15): ≤ 10 µs added per call at the median.
 *
 * @module
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Permissions, Tool, createDispatchContext, createTools, validator, type PermissionRule } from '../../lib/index.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, pairedMedianDifference, type Figure, type Row, type Target } from '../figure.js'
import { summarize } from '../stats.js'

/** 200 rules of every kind, most about other tools, as a real policy would be. */
function policyOf200(): PermissionRule[] {
  const rules: PermissionRule[] = []
  for (let i = 0; i < 50; i++) rules.push({ tool: ['read', 'write', 'edit', 'grep'], match: { paths: [`generated/${i}/**`, `*.secret${i}`] }, decision: 'deny' })
  for (let i = 0; i < 50; i++) rules.push({ tool: 'bash', match: { commands: [`tool${i} publish`, `git push${i}`] }, decision: i % 2 ? 'ask' : 'deny' })
  for (let i = 0; i < 50; i++) rules.push({ tool: 'noop', match: { when: (args: { limit: number }) => args.limit === 1_000 + i }, decision: 'deny' })
  for (let i = 0; i < 49; i++) rules.push({ tool: `other_${i}`, decision: 'deny' })
  rules.push({ tool: '*', decision: 'allow' })
  return rules
}

export const permissionsFigure: Figure = {
  id: 'permissions',
  title: 'permission policy of 200 rules: µs added per call (target: median + ≤ 10 µs)',
  async run(config) {
    const reps = config.quick ? 2_000 : 5_000
    const plan = { warmup: 10, samples: config.quick ? 7 : 21 }
    const policy = policyOf200()
    const rows: Row[] = []

    // 1. A custom tool: 51 rules apply (50 predicates and the "*" allow).
    const inputSchema = validator.object({ path: validator.string().required(), limit: validator.number().integer().required() })
    const noop = new Tool({ name: 'noop', description: 'does nothing', inputSchema, handler: () => 'ok' })
    const args = { path: 'src/index.ts', limit: 42 }
    rows.push(await added(config, 'custom tool', noop, args, policy, process.cwd(), reps, plan))

    // 2. A bash-shaped call: 51 rules apply, each a command prefix against the unwrapped command line.
    const bashLike = new Tool({
      name: 'bash',
      description: 'does nothing',
      inputSchema: validator.object({ cmd: validator.string().required(), args: validator.array().items(validator.string()).default([]) }),
      // Declared like the built-in's: command rules judge what the tool says is its command line.
      roles: { command: 'cmd', commandArgs: 'args' },
      handler: () => 'ok',
    })
    const script = { cmd: 'sh', args: ['-c', 'npm run build && git status'] }
    rows.push(await added(config, 'bash-shaped call', bashLike, script, policy, process.cwd(), reps, plan))

    // 2b. The same with an allow rule for its commands: an allow rule asks which file each bare
    // name runs (PATH looked up where a folder of it is in the root: `npm run bench` puts
    // <root>/node_modules/.bin first). No target of its own: the figure says what it costs.
    const allowing: PermissionRule[] = [...policy.slice(0, -1), { tool: 'bash', match: { commands: ['npm run build', 'git status'] }, decision: 'allow' }, policy.at(-1)!]
    rows.push(await added(config, 'bash-shaped call, allowed by command', bashLike, script, allowing, process.cwd(), reps, plan, { kind: 'report' }))

    // 3. A real read: 51 path rules, plus resolving the path inside the root (lstat per component).
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-bench-perm-'))
    try {
      fs.mkdirSync(path.join(root, 'src'))
      fs.writeFileSync(path.join(root, 'src/index.ts'), 'export {}\n')
      const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
      rows.push(await added(config, 'read (path resolved)', read, { path: 'src/index.ts' }, policy, root, config.quick ? 500 : 1_000, plan))
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
    return rows
  },
}

async function added(
  config: { quick: boolean },
  subject: string,
  tool: Tool,
  args: unknown,
  policy: PermissionRule[],
  root: string,
  reps: number,
  plan: { warmup: number; samples: number },
  // Issue 15: the policy adds at most 10 µs per call at the median, as
  // the median of paired differences: samples are interleaved, so each
  // difference is taken over the same moment of a shared machine.
  target: Target = { kind: 'overhead', max: 10, paired: true },
): Promise<Row> {
  const bare = tool.executor(createDispatchContext())
  const gated = tool.executor(createDispatchContext({ permissions: new Permissions({ policy, root }) }))
  const expected = await bare(args)
  if ((await gated(args)) !== expected) throw new Error(`${subject}: the policy changed the result`)
  const samples = await interleave(
    { none: () => timed(() => bare(args), reps), policy: () => timed(() => gated(args), reps) },
    plan,
  )
  const none = metric(samples.none, 'ms').map((ms) => ms * 1000)
  const withPolicy = metric(samples.policy, 'ms').map((ms) => ms * 1000)
  void config
  return makeRow({
    id: 'permissions',
    figure: `permission policy, 200 rules: ${subject}`,
    subject: 'executor(ctx)(args) with a 200-rule policy',
    baseline: 'the same call with no policy',
    unit: 'µs',
    subjectValues: withPolicy,
    baselineValues: none,
    target,
    note:
      `per call, ${reps} calls per sample; ${target.kind === 'report' ? 'no target' : 'target: median of the paired differences (with policy − without, samples interleaved) ≤ 10 µs'}; ` +
      `measured ${pairedMedianDifference(withPolicy, none).toFixed(1)} µs paired, ${(summarize(withPolicy).median - summarize(none).median).toFixed(1)} µs between the medians`,
  })
}
