/**
 * The machine a run happened on: figures mean nothing without it.
 *
 * @module
 */
import os from 'node:os'

/** What the report prints about the host. */
export interface MachineInfo {
  cpuModel: string
  cores: number
  memoryGiB: number
  node: string
  platform: string
  /** 1-minute load average when the run started: a busy shared host shows here. */
  loadAverage: number
}

/** Describe this host. */
export function describeMachine(): MachineInfo {
  const cpus = os.cpus()
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  }
}

/** One line, for the table header and the docs. */
export function machineLine(m: MachineInfo): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}, load ${m.loadAverage} at start`
}
