/**
 * Child-process entry of a memory figure: `main.ts <scenario> <bytes>` runs
 * one measurement and prints it as JSON on the last stdout line. One process
 * per measurement, so no figure inherits another's heap.
 *
 * @module
 */
import { measurePeak } from './peak_rss.js'
import { scenarios } from './scenarios.js'

const [name, bytesText] = process.argv.slice(2)
const scenario = name === undefined ? undefined : scenarios[name]
if (scenario === undefined) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`)
const operation = await scenario.prepare(Number(bytesText))
const result = await measurePeak(operation)
process.stdout.write(`\n${JSON.stringify(result)}\n`)
