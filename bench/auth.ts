// bench/auth: what authentication and TLS cost on the http transport. POST /tasks/ to the echo
// agent with no authenticator, with the API key authenticator and with the JWT authenticator
// (one fresh valid HS256 token sent on every request); and parley over https against a raw
// node:https JSON server. Same load generator (autocannon, 32 connections), same run, rounds
// alternated, servers on one core and the generator on the other (cpu-pinning.ts), as in
// bench/http.ts. Targets: API key >= 0.95 and JWT >= 0.85 of the unauthenticated run; https
// parley >= 0.70 of raw https.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { sampleTask, startChildServer, type ChildServer } from './lib/child-server.js';
import { pinLoadGenerator, pinningNote } from './lib/cpu-pinning.js';
import { judgeRatio, pairedRatios } from './lib/paired-rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 32;

const API_KEY = `bench-${randomUUID()}`;
const JWT_SECRET = `bench-secret-${randomUUID()}`;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  const result = await autocannon({
    url: `${url}/tasks/`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        // A fresh task id per request, so parley's idempotency cache never replays.
        setupRequest: (request) => ({ ...request, body: JSON.stringify(sampleTask(randomUUID(), 256)) }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
  };
}

interface Contender {
  readonly name: string;
  readonly script: string;
  readonly args: readonly string[];
  readonly headers: Record<string, string>;
  server?: ChildServer;
  readonly runs: Figures[];
  cpu: number | null;
  served: number;
}

/** A self-signed certificate for 127.0.0.1, made by openssl in a folder removed at the end. */
function makeCertificate(): { certfile: string; keyfile: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-tls-'));
  const certfile = join(dir, 'server.pem');
  const keyfile = join(dir, 'server.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyfile,
      '-out',
      certfile,
    ],
    { stdio: 'ignore' },
  );
  return { certfile, keyfile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const token = await new SignJWT({ sub: 'bench' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  process.env.BENCH_API_KEY = API_KEY;
  process.env.BENCH_JWT_SECRET = JWT_SECRET;
  const tls = makeCertificate();
  const contender = (name: string, script: string, args: string[], headers: Record<string, string> = {}): Contender => ({
    name,
    script,
    args,
    headers,
    runs: [],
    cpu: null,
    served: 0,
  });
  const agent = 'bench/servers/parley-auth-agent.mjs';
  const contenders = [
    contender('parley http, no auth', agent, ['none']),
    contender('parley http, API key', agent, ['api-key'], { 'x-api-key': API_KEY }),
    contender('parley http, JWT', agent, ['jwt'], { authorization: `Bearer ${token}` }),
    contender('raw node:https', 'bench/servers/raw-https.mjs', [tls.certfile, tls.keyfile]),
    contender('parley https, no auth', agent, ['none', 'https://127.0.0.1:0', tls.certfile, tls.keyfile]),
  ];
  try {
    for (const one of contenders) {
      one.server = await startChildServer(one.script, one.args);
      // Warm-up; a refused request here means the contender is misconfigured, not slow.
      const warmup = await load(one.server.url, one.headers);
      if (warmup.errors > 0) throw new Error(`${one.name}: ${warmup.errors} of ${warmup.requests} warm-up requests failed`);
      one.served += warmup.requests;
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of contenders) one.runs.push(await load(one.server!.url, one.headers));
    }
  } finally {
    for (const one of contenders) one.cpu = one.server ? await one.server.stop() : null;
    tls.remove();
  }
  const rows: Record<string, Record<string, number | string>> = {};
  for (const one of contenders) {
    const top = one.runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const served = one.runs.reduce((sum, run) => sum + run.requests, one.served);
    const errors = one.runs.reduce((sum, run) => sum + run.errors, 0);
    rows[one.name] = {
      'req/s': Math.round(top.rps),
      'p50 ms': top.p50,
      'p99 ms': top.p99,
      errors,
      'server CPU µs/req': one.cpu === null ? 'n/a' : (one.cpu / served).toFixed(1),
    };
  }
  const byName = (name: string) => contenders.find((one) => one.name === name)!;
  const rates = (name: string) => byName(name).runs.map((run) => run.rps);
  const bestRate = (name: string) => Math.max(...rates(name));
  const judge = (ours: string, baseline: string, target: number) =>
    judgeRatio(pairedRatios(rates(ours), rates(baseline)), bestRate(ours) / bestRate(baseline), target);
  console.log(`\nHTTP POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds alternated, best round)`);
  console.table(rows);
  console.log(`API key / no auth:     ${judge('parley http, API key', 'parley http, no auth', 0.95)}`);
  console.log(`JWT / no auth:         ${judge('parley http, JWT', 'parley http, no auth', 0.85)}`);
  console.log(`https parley / raw:    ${judge('parley https, no auth', 'raw node:https', 0.7)}`);
}

// The servers run the compiled code; build it first.
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
pinLoadGenerator();
console.log(pinningNote());
await main();
