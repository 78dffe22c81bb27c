/**
 * Spool stores: where tool output is kept, in memory or on disk, and read
 * back through a `SpoolReader`. One module per store; this one gathers
 * them so every store is imported from one place.
 *
 * @module
 */
export { spoolChunks, type ByteStore, type SpoolInput, type SpoolStore } from './spool_store.js'
export { InMemorySpoolStore } from './memory_spool_store.js'
export { FileSpoolStore, type FileSpoolStoreOptions } from './file_spool_store.js'
export { FileSpoolReader } from './file_spool_reader.js'
