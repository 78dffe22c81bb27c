/**
 * toolsmith: define a tool once, hand it to any model provider, run it safely.
 *
 * Every public name is exported from here.
 *
 * @packageDocumentation
 */

// --- validation and exceptions ------------------------------------------------
export * from './validation.js'
export * from './exceptions.js'

// --- utils --------------------------------------------------------------------
export * from './utils/canonical_json.js'
export * from './utils/hash.js'
export * from './utils/guards.js'

// --- core ---------------------------------------------------------------------
export * from './core/registry.js'
export * from './core/dispatch_context.js'
export * from './core/tool.js'
export * from './core/define_tool.js'
export * from './core/tool_registry.js'
export * from './core/tool_collection.js'
export * from './core/tool_call.js'

// --- artifacts ----------------------------------------------------------------
export * from './artifacts/spool_reader.js'
export * from './artifacts/stores.js'
export * from './artifacts/artifact_tool.js'
export * from './artifacts/spooled_artifact.js'

// --- sandbox and built-in tools -------------------------------------------------

// --- providers ----------------------------------------------------------------

// --- runner and journal ---------------------------------------------------------
export * from './runner/journal.js'
export * from './runner/jsonl_journal.js'
export * from './runner/sqlite_journal.js'
