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
export * from './utils/utf8.js'

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
export * from './artifacts/spooled_json_artifact.js'
export * from './artifacts/spooled_markdown_artifact.js'

// --- sandbox and built-in tools -------------------------------------------------
export * from './sandbox/sandbox.js'
export * from './sandbox/network.js'
export * from './tools/index.js'

// --- providers ----------------------------------------------------------------
export * from './providers/tool_like.js'
export * from './providers/tool_name_map.js'
export * from './providers/provider_tool_set.js'
export * from './providers/json_schema.js'
export * from './providers/openai_strict.js'
export * from './providers/optional_nulls.js'
export * from './providers/openai.js'
export * from './providers/anthropic.js'
export * from './providers/gemini.js'
export * from './providers/mcp.js'
export * from './providers/mcp_server.js'
export * from './core/call_context.js'
export * from './providers/tool_result_text.js'
export * from './providers/ai_sdk.js'

// --- runner and journal ---------------------------------------------------------
export * from './runner/journal.js'
export * from './runner/jsonl_journal.js'
export * from './runner/sqlite_journal.js'
export * from './runner/messages.js'
export * from './runner/events.js'
export * from './runner/tool_definition.js'
export * from './runner/retry_warning.js'
export * from './runner/scripted_model.js'
export * from './runner/turn_runner.js'
export * from './runner/adapters/openai_chat.js'
export * from './runner/adapters/anthropic.js'
export * from './runner/adapters/gemini.js'
