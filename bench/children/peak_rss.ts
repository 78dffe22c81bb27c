/**
 * Peak resident memory of one operation, inside the process that runs it.
 *
 * The kernel's own high-water mark (VmHWM) is reset just before the
 * operation (`5` → /proc/self/clear_refs), so it sees every peak however
 * short; a 5 ms sampler of `process.memoryUsage().rss` backs it up where
 * /proc is unavailable.
 *
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs'

function statusKiB(field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))
    return match ? Number(match[1]) : undefined
  } catch {
    return undefined
  }
}

function resetHighWaterMark(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
    return true
  } catch {
    return false
  }
}

/** Result of {@link measurePeak}. */
export interface PeakMeasurement {
  /** Wall time of the operation alone. */
  ms: number
  /** Peak RSS during the operation minus RSS just before it, in MiB. */
  rssMB: number
  /** `hwm` when the kernel high-water mark was used, `sampled` otherwise. */
  method: 'hwm' | 'sampled'
}

/** Run `operation` and report its wall time and peak RSS growth. */
export async function measurePeak(operation: () => Promise<void>): Promise<PeakMeasurement> {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const before = process.memoryUsage().rss
  const useHwm = resetHighWaterMark() && statusKiB('VmHWM') !== undefined
  let sampledPeak = before
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss)
  }, 5)
  const start = process.hrtime.bigint()
  await operation()
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  clearInterval(sampler)
  sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss)
  const hwm = useHwm ? statusKiB('VmHWM')! * 1024 : 0
  const peak = Math.max(sampledPeak, hwm)
  return { ms, rssMB: Math.max(0, peak - before) / 2 ** 20, method: useHwm ? 'hwm' : 'sampled' }
}
