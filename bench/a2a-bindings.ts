// bench/a2a-bindings: the same A2A 1.0 calls over parley's two HTTP bindings on one agent (the
// echo agent of bench/a2a, compiled: npm run build), 32 connections (autocannon), rounds
// alternated, the server pinned to one core and the load generator to the other: GetTask of
// one task (JSON-RPC against GET /a2a/rest/tasks/{id}?historyLength=1, a route matched by its
// template and read from its query), and blocking SendMessage (JSON-RPC POST / against
// HTTP+JSON POST /a2a/rest/message:send). Prints each figure and the ratio HTTP+JSON / JSON-RPC:
// the baseline is the JSON-RPC binding measured in the same run.
// Settings: BENCH_SECONDS (5), BENCH_ROUNDS (3).
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 32;
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

const message = () => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text: 'All work and no play makes a dull agent.' }],
});

interface Load {
  readonly name: string;
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly body?: () => string;
}

async function startServer(): Promise<{ url: string; stop: () => void }> {
  const [command, argv] = serverCommand(['bench/servers/parley-a2a-agent.mjs']);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the agent exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const ready = /^ready (\S+)/.exec(line);
      if (ready) resolve(ready[1]!);
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function rps(url: string, load: Load, duration: number): Promise<{ rps: number; errors: number }> {
  const result = await autocannon({
    url: `${url}${load.path}`,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: load.method,
        headers: HEADERS,
        ...(load.body && { setupRequest: (request: object) => ({ ...request, body: load.body!() }) }),
      },
    ],
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx };
}

async function main(): Promise<void> {
  pinLoadGenerator();
  const server = await startServer();
  try {
    // GetTask first: the one task it reads would be evicted from the task index (256 tasks a
    // caller) once the SendMessage loads have made thousands.
    const made = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message() } }),
    });
    const id = ((await made.json()) as { result: { task: { id: string } } }).result.task.id;
    const pairs: [Load, Load][] = [
      [
        {
          name: 'GetTask JSON-RPC',
          path: '/',
          method: 'POST',
          body: () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id, historyLength: 1 } }),
        },
        { name: 'GetTask HTTP+JSON', path: `/a2a/rest/tasks/${id}?historyLength=1`, method: 'GET' },
      ],
      [
        {
          name: 'SendMessage JSON-RPC',
          path: '/',
          method: 'POST',
          body: () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message() } }),
        },
        {
          name: 'SendMessage HTTP+JSON',
          path: '/a2a/rest/message:send',
          method: 'POST',
          body: () => JSON.stringify({ message: message() }),
        },
      ],
    ];
    let errors = 0;
    console.log(
      `A2A over parley's two HTTP bindings, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS}s, best round; ${pinningNote()}`,
    );
    for (const pair of pairs) {
      for (const load of pair) errors += (await rps(server.url, load, 1)).errors;
      const best = pair.map(() => 0);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [at, load] of pair.entries()) {
          const figures = await rps(server.url, load, SECONDS);
          best[at] = Math.max(best[at]!, figures.rps);
          errors += figures.errors;
        }
      }
      for (const [at, load] of pair.entries())
        console.log(`  ${load.name.padEnd(24)} ${best[at]!.toFixed(0).padStart(7)} requests/s`);
      console.log(`  ratio HTTP+JSON / JSON-RPC ${(best[1]! / best[0]!).toFixed(2)}x`);
    }
    if (errors) console.log(`  ${errors} errors or non-2xx answers`);
  } finally {
    server.stop();
  }
}

await main();
