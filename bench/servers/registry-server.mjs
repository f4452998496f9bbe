// A registry on http for bench/registry.ts: `node registry-server.mjs <memory|sqlite:FILE> <cards>`.
// With memory it registers the fleet itself; with a SQLite file it opens what the parent wrote.
// Prints its RSS once loaded (after a GC, when exposed) and then `ready <url>`.
import { RegistryServer, MemoryRegistryStore, SqliteRegistryStore } from '../../dist/src/index.js';
import { registerFleet } from '../lib/registry-fleet.mjs';
import './exit-with-parent.mjs';

const [storeArg = 'memory', cardsArg = '100000'] = process.argv.slice(2);
const store = storeArg === 'memory' ? new MemoryRegistryStore() : new SqliteRegistryStore(storeArg.slice('sqlite:'.length));
const registry = new RegistryServer({ transport: 'http', url: 'http://127.0.0.1:0', store });
await registry.start();
if (storeArg === 'memory') await registerFleet((card) => registry.register(card), Number(cardsArg));
globalThis.gc?.();
console.log(`count ${await registry.count()}`);
console.log(`rss ${process.memoryUsage().rss}`);
console.log(`ready ${registry.url}`);
process.on('SIGTERM', async () => {
  await registry.stop();
  process.exit(0);
});
