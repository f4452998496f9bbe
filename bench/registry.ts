// bench/registry: discovery latency among many registered cards, registration throughput, and
// the registry's memory. For the in-memory and the SQLite store, in the same run:
//   - registrations per second, 256 in flight (SQLite: each acknowledged only once committed
//     with synchronous=FULL; the in-memory store is the baseline);
//   - discover by one tag, by name, and by name + role + two tags (the indexed lookups), p50
//     and p99 per call in process (RegistryServer.discover: pruning check, index, matching),
//     with a full scan (a filter on an unindexed attribute) beside them for scale;
//   - the same three over http from a registry in its own process, which also reports its RSS
//     with every card loaded (the SQLite one reopens the file written above, as after a restart).
//
//   npm run bench:registry     (REGISTRY_BENCH_CARDS, REGISTRY_BENCH_CALLS to change the defaults)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DiscoverQuery } from '../generated/types/index.js';
import { RegistryClient } from '../src/client/registry-client.js';
import { MemoryRegistryStore } from '../src/stores/memory/memory-registry-store.js';
import { RegistryServer } from '../src/registry/registry-server.js';
import type { RegistryStore } from '../src/registry/registry-store.js';
import { SqliteRegistryStore } from '../src/stores/sqlite/sqlite-registry-store.js';
import { fleetCard, registerFleet, ROLES } from './lib/registry-fleet.mjs';

const CARDS = Number(process.env.REGISTRY_BENCH_CARDS ?? 100_000);
const CALLS = Number(process.env.REGISTRY_BENCH_CALLS ?? 2000);
const SCAN_CALLS = Math.max(5, Math.floor(CALLS / 100));
const SERVER = fileURLToPath(new URL('./servers/registry-server.mjs', import.meta.url));
const EXIT_WITH_PARENT = fileURLToPath(new URL('./servers/exit-with-parent.mjs', import.meta.url));

type QueryKind = 'one tag' | 'name' | 'name+role+2 tags' | 'full scan';

/** A query of the kind, drawn from card i so that it matches something. */
function query(kind: QueryKind, i: number): DiscoverQuery {
  const c = fleetCard(i, CARDS);
  switch (kind) {
    case 'one tag':
      return { tags: c.tags[1]! };
    case 'name':
      return { name: c.name };
    case 'name+role+2 tags':
      return { name: c.name, role: c.role, tags: [c.tags[0]!, c.tags[2]!] };
    case 'full scan':
      return { version: c.version, description: c.description };
  }
}

const INDEXED: readonly QueryKind[] = ['one tag', 'name', 'name+role+2 tags'];

interface Latency {
  p50: number;
  p99: number;
  results: number;
}

async function measure(calls: number, kind: QueryKind, discover: (q: DiscoverQuery) => Promise<unknown[]>): Promise<Latency> {
  // Warm up (JIT, statement cache) with queries the timed run does not repeat.
  for (let i = 0; i < Math.min(200, calls); i++) await discover(query(kind, (i * 7919 + 17) % CARDS));
  const times: number[] = [];
  let results = 0;
  for (let i = 0; i < calls; i++) {
    const q = query(kind, (i * 104_729 + 3) % CARDS);
    const started = performance.now();
    const found = await discover(q);
    times.push(performance.now() - started);
    results += found.length;
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), results: results / calls };
}

const ms = (value: number) => `${value < 1 ? value.toFixed(3) : value.toFixed(2)} ms`;

function row(label: string, latency: Latency): string {
  return `  ${label.padEnd(20)} p50 ${ms(latency.p50).padStart(10)}   p99 ${ms(latency.p99).padStart(10)}   ${latency.results.toFixed(1)} cards/call`;
}

async function inProcess(name: string, store: RegistryStore): Promise<number> {
  const registry = new RegistryServer({ transport: 'runtime', url: `runtime://bench-registry-${name}`, store });
  await registry.start();
  const elapsed = await registerFleet((card: never) => registry.register(card), CARDS);
  const rate = (CARDS / elapsed) * 1000;
  console.log(`${name} store: ${CARDS} registrations in ${(elapsed / 1000).toFixed(2)} s = ${Math.round(rate)} registrations/s`);
  for (const kind of INDEXED) console.log(row(kind, await measure(CALLS, kind, (q) => registry.discover(q))));
  console.log(row('full scan', await measure(SCAN_CALLS, 'full scan', (q) => registry.discover(q))));
  await registry.stop();
  return rate;
}

interface Child {
  url: string;
  rss: number;
  stop(): Promise<void>;
}

function startChild(storeArg: string): Promise<Child> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', EXIT_WITH_PARENT, SERVER, storeArg, String(CARDS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let rss = 0;
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`registry server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const used = /^rss (\d+)/.exec(line);
      if (used) rss = Number(used[1]);
      const ready = /^ready (\S+)/.exec(line);
      if (!ready) return;
      child.removeAllListeners('exit');
      resolve({
        url: ready[1]!,
        rss,
        stop: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

async function overHttp(name: string, storeArg: string): Promise<void> {
  const started = performance.now();
  const child = await startChild(storeArg);
  const loadedIn = (performance.now() - started) / 1000;
  console.log(
    `${name} store over http: registry process RSS ${(child.rss / 1048576).toFixed(0)} MiB with ${CARDS} cards (up in ${loadedIn.toFixed(1)} s)`,
  );
  const client = new RegistryClient(child.url);
  for (const kind of INDEXED) console.log(row(kind, await measure(Math.floor(CALLS / 2), kind, (q) => client.discover(q))));
  await client.close();
  await child.stop();
}

const dir = mkdtempSync(join(tmpdir(), 'parley-bench-registry-'));
const file = join(dir, 'registry.db');
try {
  console.log(
    `registry bench: ${CARDS} cards (${ROLES} roles, 4 of 5000 tags each), ${CALLS} calls per indexed query, ${SCAN_CALLS} full scans\n`,
  );
  const memoryRate = await inProcess('memory', new MemoryRegistryStore());
  const sqliteRate = await inProcess('sqlite', new SqliteRegistryStore(file));
  console.log(
    `sqlite registrations/s relative to memory: ${(sqliteRate / memoryRate).toFixed(2)}x (file ${(statSync(file).size / 1048576).toFixed(0)} MiB)\n`,
  );
  await overHttp('memory', 'memory');
  await overHttp('sqlite', `sqlite:${file}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
