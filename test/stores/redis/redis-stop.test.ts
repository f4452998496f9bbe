// A replica whose Redis went away must still stop: AgentServer.stop() returns, and no connection
// is left reconnecting (BullMQ's among them), so the process exits by itself. Run in a child
// process, which is the only way to see that nothing keeps the event loop alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redisInstalled, startRedis } from '../../support/redis-server.js';

const CHILD = fileURLToPath(new URL('./stop-without-redis.ts', import.meta.url));
const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

test('an agent on a Redis store stops and its process exits after Redis is gone', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  // A hang is the failure: the child is ended after a generous bound and the test says so.
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  clearTimeout(limit);
  assert.match(out, /stopped/, `stop() did not return; stderr: ${err}`);
  assert.equal(signal, null, 'the process did not exit by itself after stop(): a connection kept it alive');
  assert.equal(code, 0, err);
  assert.doesNotMatch(err, /Unhandled error event/);
});

test('parley serve agent on a Redis store exits on SIGTERM after Redis is gone', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const args = ['serve', 'agent', '--a2a', '--url', 'http://127.0.0.1:0', '--store', redis.url, '--log-level', 'silent'];
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const exited = new Promise<[number | null, string | null]>((resolve) =>
    child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (/^ready /m.test(out)) resolve();
    });
    child.once('exit', () => reject(new Error(`serve agent ended before it was ready: ${out}`)));
  });
  await redis.dispose();
  child.kill('SIGTERM');
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await exited;
  clearTimeout(limit);
  assert.equal(signal, null, `serve agent did not exit after SIGTERM: ${out.slice(-400)}`);
  assert.equal(code, 0, out);
});
