#!/usr/bin/env node
// node scripts/replicas.mjs [--replicas N] [--port PORT] [--root DIR] [--journal URL] [--dist]
//
// N `toolsmith mcp --http` replicas behind HAProxy on one PostgreSQL journal
// (embedded unless --journal names one), all on 127.0.0.1, until Ctrl-C.
// See docs/deployment.md.
import { parseArgs } from 'node:util'
import { startReplicas, toolsmithCommand } from './replica_set.mjs'

const { values } = parseArgs({
  options: {
    replicas: { type: 'string', default: '3' },
    port: { type: 'string' },
    root: { type: 'string' },
    journal: { type: 'string' },
    dist: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
})
if (values.help) {
  process.stdout.write(
    'Usage: node scripts/replicas.mjs [--replicas N] [--port PORT] [--root DIR] [--journal postgres://…] [--dist] [--verbose]\n' +
      '  --dist     run dist/cli/main.js (npm run build) instead of the source through tsx\n' +
      '  --journal  a PostgreSQL URL (migrated on start); default: an embedded PostgreSQL\n',
  )
  process.exit(0)
}

const set = await startReplicas({
  replicas: Number(values.replicas),
  ...(values.port === undefined ? {} : { port: Number(values.port) }),
  ...(values.root === undefined ? {} : { root: values.root }),
  ...(values.journal === undefined ? {} : { journal: values.journal }),
  command: toolsmithCommand(values.dist ? 'dist' : 'source'),
  log: values.verbose ? (line) => process.stderr.write(`${line}\n`) : undefined,
})
for (const replica of set.replicas) process.stderr.write(`${replica.name}  ${replica.url}  pid ${replica.pid}\n`)
process.stderr.write(`root     ${set.root}\nhaproxy  ${set.haproxyConfig}\n`)
process.stdout.write(`${set.url}\n`)

let stopping = false
const shutdown = async () => {
  if (stopping) return
  stopping = true
  process.stderr.write('stopping…\n')
  await set.stop()
  process.exit(0)
}
process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)
