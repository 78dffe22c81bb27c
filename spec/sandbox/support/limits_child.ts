// A kit process for the cgroup clean-up specs. Mode `exit`: start a long
// command, wait until its cgroups exist, print them, and exit mid-command.
// Mode `hang`: the same, then wait to be killed. Mode `probe`: only read the
// enforcement (which looks for cgroups, and clears those of dead kit processes).
import { existsSync } from 'node:fs'
import path from 'node:path'
import { Sandbox, createDispatchContext, createTools } from '../../../lib/index.js'
import { kitCgroups } from './kit_cgroups.js'

const [mode, root] = process.argv.slice(2) as [string, string]
if (mode === 'probe') {
  process.stdout.write(`${new Sandbox({ rootDir: root }).enforcement.limits.processes.mechanism}\n`)
} else {
  const bash = createTools({ rootDir: root, limits: { processes: 64 } }).bash.executor(createDispatchContext())
  // The mark says the command runs (bwrap armed --die-with-parent long before).
  bash({ cmd: 'sh', args: ['-c', `echo > started-${process.pid}; sleep 60`] }).catch(() => undefined)
  let found: string[] = []
  for (let i = 0; i < 1500 && !(found.length > 0 && existsSync(path.join(root, `started-${process.pid}`))); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    found = kitCgroups(process.pid)
  }
  process.stdout.write(`pid ${process.pid}\n${found.join('\n')}\n`)
  if (mode === 'exit') process.exit(0)
}
