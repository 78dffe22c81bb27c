// The cgroup directories a kit process made: `toolsmith-<pid>` and the command cgroups in it.
import fs from 'node:fs'
import path from 'node:path'

/**
 * Every cgroup directory named `toolsmith-<pid>` (at most six levels below
 * /sys/fs/cgroup) and the directories inside it.
 *
 * @param pid - The kit process.
 * @returns Absolute paths.
 */
export function kitCgroups(pid: number): string[] {
  const found = new Set<string>()
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue
      const full = path.join(dir, entry.name)
      if (entry.name === `toolsmith-${pid}`) {
        found.add(full)
        for (const inner of fs.readdirSync(full, { withFileTypes: true })) if (inner.isDirectory()) found.add(path.join(full, inner.name))
      } else if (depth < 6) walk(full, depth + 1)
    }
  }
  walk('/sys/fs/cgroup', 0)
  return [...found]
}
