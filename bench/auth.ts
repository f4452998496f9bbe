// bench/auth: what authentication and TLS cost on the http transport. POST /tasks/ to the echo
// agent with no authenticator, with the API key authenticator and with the JWT authenticator
// (one fresh valid HS256 token sent on every request); and parley over https against a raw
// node:https JSON server. Same load generator (autocannon, 32 connections), same run, rounds
// alternated, servers on one core and the generator on the other (cpu-pinning.ts), as in
// bench/http.ts. Targets: API key >= 0.95 and JWT >= 0.85 of the unauthenticated run; https
// parley >= 0.70 of raw https.
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { pinLoadGenerator, pinningNote } from './lib/cpu-pinning.js';
import { judgeRatio, pairedRatios } from './lib/paired-rounds.js';
import { CONNECTIONS, ROUNDS, SECONDS, contender, contenderRows, runContenders } from './lib/task-load.js';

const API_KEY = `bench-${randomUUID()}`;
const JWT_SECRET = `bench-secret-${randomUUID()}`;

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
  const agent = 'bench/servers/parley-auth-agent.mjs';
  const contenders = [
    contender('parley http, no auth', agent, ['none']),
    contender('parley http, API key', agent, ['api-key'], { 'x-api-key': API_KEY }),
    contender('parley http, JWT', agent, ['jwt'], { authorization: `Bearer ${token}` }),
    contender('raw node:https', 'bench/servers/raw-https.mjs', [tls.certfile, tls.keyfile]),
    contender('parley https, no auth', agent, ['none', 'https://127.0.0.1:0', tls.certfile, tls.keyfile]),
  ];
  try {
    await runContenders(contenders);
  } finally {
    tls.remove();
  }
  const byName = (name: string) => contenders.find((one) => one.name === name)!;
  const rates = (name: string) => byName(name).runs.map((run) => run.rps);
  const bestRate = (name: string) => Math.max(...rates(name));
  const judge = (ours: string, baseline: string, target: number) =>
    judgeRatio(pairedRatios(rates(ours), rates(baseline)), bestRate(ours) / bestRate(baseline), target);
  console.log(`\nHTTP POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds alternated, best round)`);
  console.table(contenderRows(contenders));
  console.log(`API key / no auth:     ${judge('parley http, API key', 'parley http, no auth', 0.95)}`);
  console.log(`JWT / no auth:         ${judge('parley http, JWT', 'parley http, no auth', 0.85)}`);
  console.log(`https parley / raw:    ${judge('parley https, no auth', 'raw node:https', 0.7)}`);
}

// The servers run the compiled code; build it first.
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
pinLoadGenerator();
console.log(pinningNote());
await main();
