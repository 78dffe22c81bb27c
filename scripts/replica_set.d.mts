// Types of replica_set.mjs, for the spec and the bench (TypeScript strict).

/** Options of {@link startReplicas}. */
export interface ReplicaSetOptions {
  /** How many `toolsmith mcp --http` replicas. @defaultValue 3 */
  replicas?: number
  /** The balancer's port on 127.0.0.1. @defaultValue a free port */
  port?: number
  /** The sandbox root every replica serves. @defaultValue a new temp folder */
  root?: string
  /** A PostgreSQL URL for the journal (migrated here). @defaultValue an embedded PostgreSQL */
  journal?: string
  /** The argv that runs the toolsmith CLI. @defaultValue {@link toolsmithCommand}('source') */
  command?: string[]
  /** More arguments for every replica's `toolsmith mcp` (e.g. `--policy FILE`). */
  replicaArgs?: string[]
  /** More environment for the replicas. */
  env?: NodeJS.ProcessEnv
  /** The haproxy executable. @defaultValue 'haproxy' */
  haproxy?: string
  /** How long each process may take to answer HTTP. @defaultValue 120000 */
  startTimeoutMs?: number
  /** Each stderr line of the replicas and HAProxy. */
  log?: (line: string) => void
}

/** One replica. */
export interface Replica {
  /** `replica1`…, as HAProxy names it. */
  readonly name: string
  /** Its own endpoint, bypassing the balancer. */
  readonly url: string
  /** Its process id (the leader of its process group). */
  readonly pid: number
  /** Signal its process group (SIGKILL by default: a crash) and wait for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>
}

/** A running replica set. */
export interface ReplicaSet {
  /** The balancer's MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string
  /** The journal's URL (it carries the password). */
  readonly journalUrl: string
  /** The sandbox root. */
  readonly root: string
  /** The generated HAProxy configuration file. */
  readonly haproxyConfig: string
  /** The replicas, in HAProxy's order. */
  readonly replicas: readonly Replica[]
  /** Stop HAProxy, the replicas and the embedded PostgreSQL; remove the temp folder. */
  stop(): Promise<void>
}

/** The argv of the toolsmith CLI in this checkout: the build, or the source through tsx. */
export function toolsmithCommand(from?: 'dist' | 'source'): string[]
/** A port nobody listens on right now. */
export function freePort(): Promise<number>
/** The generated HAProxy configuration. */
export function haproxyConfig(options: { port: number; replicaPorts: number[] }): string
/** An embedded PostgreSQL on 127.0.0.1 (data under `dir`, or a temp folder `stop` removes). */
export function startEmbeddedPostgres(dir?: string): Promise<{ url: string; stop(): Promise<void> }>
/** Start PostgreSQL (unless given), the replicas and HAProxy. */
export function startReplicas(options?: ReplicaSetOptions): Promise<ReplicaSet>
