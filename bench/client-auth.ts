// bench/client-auth: what the client-side `auth` option costs. parley's own AgentClient (the
// compiled code, in this process, on the load generator's core) sends native POST /tasks/ to
// the echo agent on http, 32 calls in flight: with `auth: { apiKey }` against an agent with the
// API key authenticator, and with no credentials against an agent with none; also a bearer
// token from a function (asked before every call) against the same key agent, informational.
// Same run, rounds alternated, servers on the other core (cpu-pinning.ts). Target: the key
// costs little, >= 0.90 of the run without credentials (the server's check is in that figure
// too; bench/auth measures it alone). npm run build first, then npx tsx bench/client-auth.ts.
import { randomUUID } from 'node:crypto';
import { sampleTask, startChildServer, type ChildServer } from './lib/child-server.js';
import { pinLoadGenerator, pinningNote } from './lib/cpu-pinning.js';
import { judgeRatio, median, pairedRatios } from './lib/paired-rounds.js';
import { ROUNDS, SECONDS } from './lib/task-load.js';

const DIST = new URL('../dist/', import.meta.url).href;
const API_KEY = `bench-${randomUUID()}`;
const IN_FLIGHT = 32;

type ClientModule = typeof import('../dist/src/client/agent-client.js');
type Client = InstanceType<ClientModule['AgentClient']>;

interface Contender {
  readonly name: string;
  readonly server: ChildServer;
  readonly client: Client;
  readonly rates: number[];
}

/** Calls per second over `seconds`, IN_FLIGHT calls at a time, each a fresh 1 KB task. */
async function drive(client: Client, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < until) {
      await client.sendTask(sampleTask(randomUUID(), 1024) as never);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return done / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  process.env.BENCH_API_KEY = API_KEY;
  pinLoadGenerator();
  const { AgentClient } = (await import(`${DIST}src/client/agent-client.js`)) as ClientModule;
  const open = await startChildServer('bench/servers/parley-auth-agent.mjs', ['none']);
  const keyed = await startChildServer('bench/servers/parley-auth-agent.mjs', ['api-key']);
  const client = (url: string, auth?: ConstructorParameters<ClientModule['AgentClient']>[1]) =>
    new AgentClient(url, { protocol: 'parley', ...auth });
  const contenders: Contender[] = [
    { name: 'no credentials', server: open, client: client(open.url), rates: [] },
    { name: 'auth: { apiKey }', server: keyed, client: client(keyed.url, { auth: { apiKey: API_KEY } }), rates: [] },
    {
      name: 'auth: { bearer: () => token }',
      server: keyed,
      client: client(keyed.url, { auth: { bearer: () => API_KEY } }),
      rates: [],
    },
  ];
  try {
    for (const one of contenders) await drive(one.client, 1); // warm-up: connections, JIT
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of contenders) one.rates.push(await drive(one.client, SECONDS));
    }
  } finally {
    for (const one of contenders) await one.client.close();
    await open.stop();
    await keyed.stop();
  }
  console.log(`\nAgentClient POST /tasks/ over http (${IN_FLIGHT} in flight, ${SECONDS}s x ${ROUNDS} rounds alternated)`);
  console.table(
    Object.fromEntries(
      contenders.map((one) => [
        one.name,
        { 'best calls/s': Math.round(Math.max(...one.rates)), 'median calls/s': Math.round(median(one.rates)) },
      ]),
    ),
  );
  const [none, key, bearer] = contenders.map((one) => one.rates) as [number[], number[], number[]];
  const best = (a: number[], b: number[]) => Math.max(...a) / Math.max(...b);
  console.log(`API key / none:          ${judgeRatio(pairedRatios(key, none), best(key, none), 0.9)}`);
  console.log(`bearer function / none:  ${judgeRatio(pairedRatios(bearer, none), best(bearer, none), 0.9)} (informational)`);
  console.log(pinningNote());
}

await main();
