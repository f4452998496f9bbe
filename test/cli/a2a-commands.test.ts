// `parley serve agent --a2a` answers the official SDK's client, and `parley send` talks to a
// parley agent and to an @a2a-js/sdk agent, printing the answer, the state and the artifacts
// (or the task as JSON).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ClientFactory } from '@a2a-js/sdk/client';
import { AgentServer } from '../../src/agent/agent-server.js';
import { startSdkAgent } from '../interop/sdk-agent.js';
import { assertNoStackTrace, runCli } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

describe('parley serve agent --a2a', () => {
  it('serves the A2A card and JSON-RPC that the SDK client uses', async () => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', 'agent', '--a2a', '--url', 'http://127.0.0.1:0'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const match = /^ready (\S+)$/m.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('exit', () => reject(new Error(`serve exited: ${out}`)));
    });
    try {
      const client = await new ClientFactory().createFromUrl(url);
      const task: any = await client.sendMessage({
        message: { messageId: 'm1', role: 1, parts: [{ content: { $case: 'text', value: 'ping' } }] },
      } as any);
      assert.equal(task.status.state, 3);
      assert.equal(task.artifacts[0].parts[0].content.value, 'ping');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('--a2a with another transport is a usage error', async () => {
    const result = await runCli(['serve', 'agent', '--a2a', '--transport', 'grpc'], { cwd: ROOT });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--a2a needs the http transport/);
    assertNoStackTrace(result);
  });
});

describe('parley send', () => {
  it("prints a parley agent's answer, the state and the artifact", async (t) => {
    const agent = new AgentServer({ name: 'echo' });
    await agent.start();
    t.after(() => agent.stop());
    const result = await runCli(['send', agent.url, 'hello there'], { cwd: ROOT });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^hello there\nstate: completed\nartifact result \S+:\n {2}hello there\n$/);
  });

  it('talks A2A to an @a2a-js/sdk agent, and --json prints the whole task', async (t) => {
    const agent = await startSdkAgent();
    t.after(() => agent.close());
    const text = await runCli(['send', agent.url, 'hi'], { cwd: ROOT });
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^echo: hi\nstate: completed\na2a task: \S+ \(TASK_STATE_COMPLETED\)\nartifact echo \S+:\n {2}echo: hi\n$/,
    );
    const json = await runCli(['send', agent.url, 'hi', '--protocol', 'a2a', '--json'], { cwd: ROOT });
    assert.equal(json.code, 0, json.stderr);
    const task = JSON.parse(json.stdout);
    assert.equal(task.state, 'completed');
    assert.equal(task.metadata.a2a_remote.state, 'TASK_STATE_COMPLETED');
  });

  it('a missing text or an unknown protocol is a usage error', async () => {
    for (const args of [
      ['send', 'http://127.0.0.1:1'],
      ['send', 'http://127.0.0.1:1', 'x', '--protocol', 'smoke'],
    ]) {
      const result = await runCli(args, { cwd: ROOT });
      assert.equal(result.code, 2);
      assertNoStackTrace(result);
    }
  });
});
