// An idle client connection does not keep a process alive (a script that forgets stop()
// still exits), while a pending call does. The client runs in a child process against a
// parley server in this one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ops, serve, table, unary } from '../../support/transport-fixtures.js';

const ROOT = new URL('../../../', import.meta.url);

describe('websocket client connection lifetime', () => {
  it('lets the process exit once its calls are answered, without stop()', { timeout: 60_000 }, async (t) => {
    const endpoints = table(
      unary(ops.sendTask, async (task: { id: string }) => {
        // Answer late: the child must stay alive for a pending call.
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { ...task, state: 'completed' };
      }),
    );
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', endpoints);
    const dir = mkdtempSync(join(tmpdir(), 'parley-ws-exit-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, 'main.mts');
    writeFileSync(
      script,
      `import { createTransport } from ${JSON.stringify(new URL('src/transport/factory.ts', ROOT).href)};
      import { agentOperations } from ${JSON.stringify(new URL('generated/operations/agent.ts', ROOT).href)};
      const transport = await createTransport('websocket', ${JSON.stringify(server.url)});
      const task = await transport.unary(agentOperations.sendTask, { id: 'from-child' });
      console.log(JSON.stringify(task));\n`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: new URL('.', ROOT).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => child.kill());
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout.trim()), { id: 'from-child', state: 'completed' });
  });
});
