import { FileSpoolStore } from '../../lib/index.js'
import { textStream } from '../children/scenarios.js'
const store = new FileSpoolStore({ dir: '/tmp/toolsmith-bench/prof-spool' })
await store.write('a', textStream(256 * 2 ** 20))
await store.clear?.()
