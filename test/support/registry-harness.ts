// Test harness for the registry server: starts a RegistryServer on a real transport with a
// chosen store and a clock the test moves, and gives back the facade client (RegistryClient)
// and the typed low-level client over a client transport of the same kind. Everything is
// stopped by close(), registered with t.after. No mocks: every call crosses the real wire.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryOperationsClient } from '../../generated/clients/registry.js';
import type { AgentCard } from '../../generated/types/index.js';
import { RegistryClient, type RegistryClientOptions } from '../../src/client/registry-client.js';
import { MemoryRegistryStore } from '../../src/stores/memory/memory-registry-store.js';
import { RegistryServer, type RegistryServerOptions } from '../../src/registry/registry-server.js';
import type { RegistryStore } from '../../src/registry/registry-store.js';
import { SqliteRegistryStore } from '../../src/stores/sqlite/sqlite-registry-store.js';
import { createTransport } from '../../src/transport/factory.js';
import type { Transport, TransportOptions } from '../../src/transport/transport.js';
import { listenUrl, TRANSPORTS, type TransportKind } from './cross-transport.js';

export { TRANSPORTS, type TransportKind };

export type StoreKind = 'memory' | 'sqlite';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'sqlite'];

/** A clock the test sets; seconds since the epoch. */
class TestClock {
  constructor(public now = 1_800_000_000) {}
  readonly read = (): number => this.now;
  advance(seconds: number): void {
    this.now += seconds;
  }
}

export interface RegistryHarness {
  readonly registry: RegistryServer;
  readonly clock: TestClock;
  /** The facade over a client transport of the registry's kind. */
  readonly client: RegistryClient;
  /** The typed client, for errors as they are raised. */
  readonly ops: RegistryOperationsClient;
  readonly url: string;
  /** Another client of the same kind, with its own options (credentials, TLS). */
  newClient(options?: Omit<RegistryClientOptions, 'transport'>): RegistryClient;
  close(): Promise<void>;
}

export interface RegistryHarnessOptions extends Omit<RegistryServerOptions, 'transport' | 'url' | 'clock' | 'store'> {
  readonly store?: StoreKind | RegistryStore;
  readonly url?: string;
  readonly clientOptions?: TransportOptions;
}

function makeStore(kind: StoreKind, t: { after(fn: () => void): void }): RegistryStore {
  if (kind === 'memory') return new MemoryRegistryStore();
  const dir = mkdtempSync(join(tmpdir(), 'parley-registry-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return new SqliteRegistryStore(join(dir, 'registry.db'));
}

export async function startRegistry(
  t: { after(fn: () => unknown): void },
  kind: TransportKind,
  { store = 'memory', url, clientOptions = {}, ...options }: RegistryHarnessOptions = {},
): Promise<RegistryHarness> {
  const clock = new TestClock();
  const registry = new RegistryServer({
    ...options,
    transport: kind,
    url: url ?? listenUrl(kind),
    clock: clock.read,
    store: typeof store === 'string' ? makeStore(store, t) : store,
  });
  await registry.start();
  const clients: RegistryClient[] = [];
  const transports: Transport[] = [];
  const newClient = (opts: Omit<RegistryClientOptions, 'transport'> = clientOptions) => {
    const client = new RegistryClient(registry.url, { ...opts, transport: kind });
    clients.push(client);
    return client;
  };
  const client = newClient();
  const transport = await createTransport(kind, registry.url, clientOptions);
  transports.push(transport);
  const harness: RegistryHarness = {
    registry,
    clock,
    client,
    ops: new RegistryOperationsClient(transport),
    url: registry.url,
    newClient,
    async close() {
      for (const c of clients.splice(0)) await c.close();
      for (const tr of transports.splice(0)) await tr.stop();
      await registry.stop();
    },
  };
  t.after(() => harness.close());
  return harness;
}

export function card(url: string, name: string, fields: Partial<AgentCard> = {}): AgentCard {
  return { name, url, description: '', role: '', tags: [], ...fields };
}

export function urlsOf(cards: readonly AgentCard[]): string[] {
  return cards.map((c) => c.url).sort();
}
