// A kit process without cgroups (TOOLSMITH_CGROUPS=off, set by the spec):
// prints the enforcement of the limits and the outcome of a memory balloon
// in python and in node, as one JSON object.
import { Sandbox, createDispatchContext, createTools } from '../../../lib/index.js'

// 768 MiB: RLIMIT_DATA counts reservations, and Node 24's V8 reserves ≈ 560 MiB before it runs
// anything (`Failed to reserve virtual memory for CodeRange` under 512 MiB; Node 20 starts under
// 256 MiB); both balloons below ask for 1 GiB on top of that.
const sandbox = new Sandbox({ rootDir: process.argv[2]!, limits: { processes: 64, memoryBytes: 768 * 1024 * 1024 } })
const bash = createTools(sandbox).bash.executor(createDispatchContext())
const outcome = async (cmd: string, args: string[]) => {
  try {
    return { ok: true, text: String(await bash({ cmd, args })) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; details?: { limit?: string } } }).cause
    return { ok: false, code: cause?.code, limit: cause?.details?.limit }
  }
}
process.stdout.write(
  JSON.stringify({
    limits: sandbox.enforcement.limits,
    python: await outcome('python3', ['-c', 'b = bytearray(1024 << 20); print("survived")']),
    node: await outcome('node', ['-e', 'const a = []; for (let i = 0; i < 16; i++) a.push(Buffer.alloc(64 << 20, 1)); console.log("survived")']),
    small: await outcome('node', ['-e', 'console.log("node starts")']),
  }),
)
