// Temp folders for specs, removed when the spec file finishes (the hook is
// registered by spec/support/setup.ts), so a test run leaves nothing behind in
// the machine's temp directory.
import { mkdtempSync, rmSync } from 'node:fs'

const created: string[] = []

/**
 * `fs.mkdtempSync(prefix)`, removed (recursively) after the current spec file.
 *
 * @param prefix - Path prefix, as for `mkdtempSync`.
 * @returns The new folder's path.
 */
export function trackedMkdtemp(prefix: string): string {
  const dir = mkdtempSync(prefix)
  created.push(dir)
  return dir
}

/** Remove every folder made by {@link trackedMkdtemp} so far. */
export function removeTrackedDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
}
