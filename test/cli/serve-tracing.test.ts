// `parley serve agent --tracing` with an SDK preloaded by `node --import`, as docs/operations.md
// tells users to run it: a request carrying a traceparent is served in a span of that trace.
// Without the flag the same setup records nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { untilServing } from './run-cli.js';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const SETUP = fileURLToPath(new URL('./fixtures/otel-spans-to-stderr.mjs', import.meta.url));
const TSX = import.meta.resolve('tsx');
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

/** Serves, sends one traced request, stops; resolves with the span lines the process wrote. */
async function spansOfOneRequest(flags: string[]): Promise<{ name: string; traceId: string; parent: string | null }[]> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, '--import', SETUP, MAIN, 'serve', 'agent', '--url', 'http://127.0.0.1:0', ...flags],
    { cwd: ROOT, env: { ...process.env, PARLEY_DEBUG: '' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const { url, stderr, exited } = await untilServing(child);
  const answer = await fetch(`${url}/tasks/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
    body: JSON.stringify({ id: 'traced', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] }),
  });
  assert.equal(answer.status, 200);
  await answer.text();
  child.kill('SIGTERM');
  const err = stderr();
  assert.equal(await exited, 0, err);
  return err
    .split('\n')
    .filter((line) => line.startsWith('span '))
    .map((line) => JSON.parse(line.slice(5)));
}

test('serve agent --tracing: the request is served in a span of the caller’s trace', async () => {
  const spans = await spansOfOneRequest(['--tracing']);
  assert.deepEqual(spans, [{ name: 'parley sendTask', traceId: TRACE_ID, parent: 'b7ad6b7169203331' }]);
});

test('serve agent without --tracing: no spans', async () => {
  assert.deepEqual(await spansOfOneRequest([]), []);
});
