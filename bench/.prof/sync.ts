import { open, rename } from 'node:fs/promises'
const data = Buffer.alloc(150000, 97)
for (const sync of [false, true, false, true]) {
  const N = 30; const t = performance.now()
  for (let i = 0; i < N; i++) { const h = await open('/tmp/toolsmith-bench/edit-root/.tmp', 'w'); await h.writeFile(data); if (sync) await h.datasync(); await h.close(); await rename('/tmp/toolsmith-bench/edit-root/.tmp', '/tmp/toolsmith-bench/edit-root/x.txt') }
  console.log(sync ? 'with datasync' : 'without', ((performance.now() - t) / N).toFixed(2), 'ms')
}
