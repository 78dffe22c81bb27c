/**
 * Raw-descriptor calls: `open(2)` flags that may be missing on a platform,
 * and promise wrappers of the callback `fs` calls on a plain descriptor, for
 * the hot paths of reads and writes that skip a FileHandle object per call.
 *
 * @module
 */
import {
  constants,
  fchmod as fchmodCallback,
  fchown as fchownCallback,
  fdatasync as fdatasyncCallback,
  fstat as fstatCallback,
  open as openCallback,
  read as readCallback,
  write as writeCallback,
  type Stats,
} from 'node:fs'

/** `O_NOFOLLOW`, or 0 where the platform has none. @internal */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
/** `O_NONBLOCK`, or 0 where the platform has none. @internal */
export const O_NONBLOCK = constants.O_NONBLOCK ?? 0
/** `O_DIRECTORY`, or 0 where the platform has none. @internal */
export const O_DIRECTORY = constants.O_DIRECTORY ?? 0

// Wrapped by hand rather than with util.promisify: `node:util` pulls
// parseArgs, MIME and File into every `import 'toolsmith'` (bench: import).

/** `open(2)` of `file`, resolving to the raw descriptor. @internal */
export function openFd(file: string, flags: number, mode?: number): Promise<number> {
  return new Promise((resolve, reject) => openCallback(file, flags, mode, (error, fd) => (error ? reject(error) : resolve(fd))))
}
/** `fstat(2)` of a raw descriptor. @internal */
export function fstatFd(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstatCallback(fd, (error, stats) => (error ? reject(error) : resolve(stats))))
}
/** `fdatasync(2)` of a raw descriptor. @internal */
export function fdatasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasyncCallback(fd, (error) => (error ? reject(error) : resolve())))
}
/** `fchmod(2)` of a raw descriptor. @internal */
export function fchmodFd(fd: number, mode: number): Promise<void> {
  return new Promise((resolve, reject) => fchmodCallback(fd, mode, (error) => (error ? reject(error) : resolve())))
}
/** `fchown(2)` of a raw descriptor. @internal */
export function fchownFd(fd: number, uid: number, gid: number): Promise<void> {
  return new Promise((resolve, reject) => fchownCallback(fd, uid, gid, (error) => (error ? reject(error) : resolve())))
}
/** `pwrite(2)` of `length` bytes of `data` from `offset`, at `position`; resolves to the bytes written. @internal */
export function writeFd(fd: number, data: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    writeCallback(fd, data, offset, length, position, (error, bytesWritten) => (error ? reject(error) : resolve(bytesWritten)))
  })
}
/** `pread(2)` of up to `length` bytes at `position` into the start of `buffer`; resolves to the bytes read. @internal */
export function readFd(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    readCallback(fd, buffer, 0, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead)))
  })
}
