// `parley serve agent --queue-concurrency N` (or `queue_concurrency` in --config): checked like
// every flag (a whole number from 1, and only with --store and --a2a), and with a real Redis a
// served agent runs a SendMessage with returnImmediately from the shared queue to completion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, userMessage } from '../a2a/support.js';
import { testRedis } from '../support/redis-client.js';
import { redisInstalled, startRedis } from '../support/redis-server.js';
import { runCli } from './run-cli.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

test('serve agent: --queue-concurrency is a whole number from 1, and needs --store and --a2a', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'parley-queue-cli-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const rows: { args: string[]; message: RegExp }[] = [
    { args: ['--queue-concurrency', '0', '--store', 'redis://127.0.0.1:1', '--a2a'], message: /at least 1 \(got "0"\)/ },
    { args: ['--queue-concurrency', '2.5', '--store', 'redis://127.0.0.1:1', '--a2a'], message: /whole number/ },
    { args: ['--queue-concurrency', '2', '--a2a'], message: /needs --store and --a2a/ },
    { args: ['--queue-concurrency', '2', '--store', 'redis://127.0.0.1:1'], message: /needs --store and --a2a/ },
  ];
  for (const row of rows) {
    const result = await runCli(['serve', 'agent', '--url', 'http://127.0.0.1:0', ...row.args], { cwd });
    assert.equal(result.code, 2, `${row.args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, row.message);
  }
  writeFileSync(join(cwd, 'bad.json'), JSON.stringify({ queue_concurrency: 0 }));
  const bad = await runCli(['serve', 'agent', '--config', 'bad.json'], { cwd });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /\/queue_concurrency must be a whole number, at least 1/);
});

test('serve agent --store --a2a --queue-concurrency 2: a queued task runs to completion', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const args = ['serve', 'agent', '--a2a', '--url', 'http://127.0.0.1:0', '--store', redis.url, '--queue-concurrency', '2'];
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /^ready (\S+)$/m.exec(output);
      if (match) resolve(match[1]!.replace(/\/$/, ''));
    });
    void exited.then(([code]) => reject(new Error(`serve exited (${code}):\n${output}`)));
  });
  const sent = await call(url, 'SendMessage', {
    message: userMessage('from the queue'),
    configuration: { returnImmediately: true },
  });
  const id = sent.result.task.id;
  let seen = await call(url, 'GetTask', { id });
  for (let i = 0; i < 1200 && seen.result?.status?.state !== 'TASK_STATE_COMPLETED'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    seen = await call(url, 'GetTask', { id });
  }
  assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
  assert.match(JSON.stringify(seen.result.artifacts), /from the queue/);
  // The job went through the queue: its keys sit under the store's prefix.
  const client = testRedis(redis.url);
  t.after(() => client.disconnect());
  assert.ok((await client.keys('parley:queue:a2a-tasks:*')).length > 0);
});
