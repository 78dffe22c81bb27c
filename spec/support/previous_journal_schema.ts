// The journal schemas of the version before permission records
// (`permission_json`), verbatim: specs build databases with them to prove
// that this version upgrades them instead of refusing them.

/** The SQLite schema of the previous version, verbatim. */
export const OLD_SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS tool_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tool_name TEXT NOT NULL,
  input_json TEXT NOT NULL,
  output_json TEXT,
  started_at_ms INTEGER NOT NULL,
  finished_at_ms INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('success', 'error')),
  error_json TEXT,
  call_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  side_effect INTEGER,
  idempotent INTEGER,
  replayed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tool_calls_by_run ON tool_calls (run_id, node_id, iteration, attempt, seq);
CREATE INDEX IF NOT EXISTS tool_calls_by_idempotency_key ON tool_calls (idempotency_key);
CREATE TABLE IF NOT EXISTS tool_claims (
  claim_key TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_expires_at_ms INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tool_name TEXT NOT NULL,
  input_json TEXT NOT NULL,
  output_json TEXT,
  started_at_ms INTEGER NOT NULL,
  finished_at_ms INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'success', 'error')),
  error_json TEXT,
  call_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  replayed INTEGER NOT NULL DEFAULT 0,
  side_effect INTEGER,
  idempotent INTEGER
);
CREATE TABLE IF NOT EXISTS turn_checkpoints (
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  prompt TEXT NOT NULL,
  messages_json TEXT NOT NULL,
  steps INTEGER NOT NULL,
  state_json TEXT NOT NULL,
  done INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, node_id, iteration)
);
`

/** The PostgreSQL migration of the previous version, verbatim. */
export function oldPostgresMigration(schema: string): string[] {
  const s = `"${schema}"`
  const rowColumns = `
  run_id text NOT NULL,
  node_id text NOT NULL,
  iteration integer NOT NULL,
  attempt integer NOT NULL,
  seq integer NOT NULL,
  tool_name text NOT NULL,
  input_json text NOT NULL,
  output_json text,
  started_at_ms bigint NOT NULL,
  finished_at_ms bigint NOT NULL,
  error_json text,
  call_id text NOT NULL,
  idempotency_key text NOT NULL,
  replayed boolean NOT NULL DEFAULT false,
  side_effect boolean,
  idempotent boolean`
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.tool_calls (
  id bigserial PRIMARY KEY,${rowColumns},
  status text NOT NULL CHECK (status IN ('success', 'error'))
)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_by_run ON ${s}.tool_calls (run_id, node_id, iteration, attempt, seq)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_by_idempotency_key ON ${s}.tool_calls (idempotency_key)`,
    `CREATE TABLE IF NOT EXISTS ${s}.tool_claims (
  claim_key text PRIMARY KEY,
  owner text NOT NULL,
  lease_expires_at_ms bigint NOT NULL,${rowColumns},
  status text NOT NULL CHECK (status IN ('running', 'success', 'error'))
)`,
    `CREATE TABLE IF NOT EXISTS ${s}.turn_checkpoints (
  run_id text NOT NULL,
  node_id text NOT NULL,
  iteration integer NOT NULL,
  attempt integer NOT NULL,
  prompt text NOT NULL,
  messages_json text NOT NULL,
  steps integer NOT NULL,
  state_json text NOT NULL,
  done boolean NOT NULL,
  updated_at_ms bigint NOT NULL,
  PRIMARY KEY (run_id, node_id, iteration)
)`,
  ]
}
