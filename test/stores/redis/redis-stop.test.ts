// A replica whose Redis went away must still stop: AgentServer.stop() returns, and no connection
// is left reconnecting (BullMQ's among them), so the process exits by itself. Run in a child
// process, which is the only way to see that nothing keeps the event loop alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redisInstalled } from '../../support/redis-server.js';

const CHILD = fileURLToPath(new URL('./stop-without-redis.ts', import.meta.url));

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
