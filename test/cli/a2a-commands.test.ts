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
import { grpcJsStub, unaryCall, userMessage } from '../a2a/grpc/support.js';
import { startSdkAgent } from '../interop/sdk-agent.js';
import { startStreamingSdkAgent } from '../interop/sdk-streaming-agent.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { assertNoStackTrace, runCli, scratchDir, untilServing } from './run-cli.js';

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

  it('--transport grpc serves the gRPC binding on the same port', async (t) => {
    const child = spawn(
      process.execPath,
      ['--import', TSX, MAIN, 'serve', 'agent', '--a2a', '--transport', 'grpc', '--url', 'grpc://127.0.0.1:0'],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
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
      const stub = grpcJsStub(t, url.replace(/^grpc:\/\//, ''));
      const sent = await unaryCall(stub, 'SendMessage', { message: userMessage('ping over grpc') });
      assert.equal(sent.error, undefined, sent.error?.details);
      assert.equal(sent.answer.task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(sent.answer.task.artifacts[0].parts[0].text, 'ping over grpc');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('--a2a with a transport that has no A2A binding is a usage error', async () => {
    const result = await runCli(['serve', 'agent', '--a2a', '--transport', 'websocket'], { cwd: ROOT });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--a2a needs the http or grpc transport, not websocket/);
    assertNoStackTrace(result);
  });
});

describe('parley serve agent --a2a-push-*', () => {
  it('--a2a-push-allow-private and --a2a-push-allow-http let a task be pushed to a webhook on 127.0.0.1', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const args = ['serve', 'agent', '--a2a', '--url', 'http://127.0.0.1:0', '--a2a-push-allow-private', '--a2a-push-allow-http'];
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const { url } = await untilServing(child);
      const client = await new ClientFactory().createFromUrl(url);
      await client.sendMessage({
        message: { messageId: 'm1', role: 1, parts: [{ content: { $case: 'text', value: 'ping' } }] },
        configuration: { taskPushNotificationConfig: { url: `${receiver.origin}/hook`, token: 'cli-token' } },
      } as any);
      // The echo handler answers at once: its end (the artifact, then the status) is all there is.
      const last = JSON.parse((await receiver.nth(2)).body);
      assert.equal(last.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(receiver.calls[0]!.headers['x-a2a-notification-token'], 'cli-token');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('without them a webhook on 127.0.0.1 is refused when registered', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', 'agent', '--a2a', '--url', 'http://127.0.0.1:0'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      const { url } = await untilServing(child);
      const response = await fetch(`${url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'ping' }] },
            configuration: { taskPushNotificationConfig: { url: `https://127.0.0.1:${receiver.port}/` } },
          },
        }),
      });
      const answer = (await response.json()) as any;
      assert.equal(answer.error.code, -32602);
      assert.match(answer.error.message, /loopback/);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  for (const [name, flags, message] of [
    ['--a2a-push-allow-private without --a2a', ['--a2a-push-allow-private'], /need --a2a/],
    ['an empty entry in --a2a-push-allow', ['--a2a', '--a2a-push-allow', 'hooks.internal,,10.0.0.0/8'], /empty entry/],
  ] as const) {
    it(`${name} is a usage error (status 2)`, async () => {
      const result = await runCli(['serve', 'agent', ...flags], { cwd: ROOT });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assertNoStackTrace(result);
    });
  }
});

describe('parley serve agent --a2a-extended-card', () => {
  const EXTENDED = JSON.stringify({
    description: 'For members: echoes and translates.',
    skills: [{ id: 'translate', name: 'Translate', description: 'Translates to French.', tags: ['i18n'] }],
  });

  it('serves the extended card to an authenticated caller; the public card declares it', async (t) => {
    const scratch = scratchDir({ 'extended.json': EXTENDED });
    t.after(scratch.cleanup);
    const args = ['serve', 'agent', '--a2a', '--url', 'http://127.0.0.1:0', '--api-key', 'cli-extended-key-1'];
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args, '--a2a-extended-card', 'extended.json'], {
      cwd: scratch.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      const { url } = await untilServing(child);
      const card: any = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
      assert.equal(card.capabilities.extendedAgentCard, true);
      const response = await fetch(`${url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': 'cli-extended-key-1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }),
      });
      const extended = ((await response.json()) as any).result;
      assert.equal(extended.description, 'For members: echoes and translates.');
      assert.deepEqual(
        extended.skills.map((skill: any) => skill.id),
        ['echo', 'translate'],
      );
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  const refusals: [string, string[], Record<string, string>, RegExp][] = [
    ['without --a2a', ['--api-key', 'cli-extended-key-1'], { 'e.json': EXTENDED }, /needs --a2a/],
    ['without an authenticator', ['--a2a'], { 'e.json': EXTENDED }, /needs an authenticator/],
    ['a file that is not JSON', ['--a2a', '--api-key', 'cli-extended-key-1'], { 'e.json': '{' }, /e\.json is not JSON/],
    [
      'a skill without a name',
      ['--a2a', '--api-key', 'cli-extended-key-1'],
      { 'e.json': JSON.stringify({ skills: [{ id: 'x', description: 'd', tags: [] }] }) },
      /e\.json: \/a2a_extended_card\.skills\[0\]\.name: is required/,
    ],
  ];
  for (const [name, flags, files, message] of refusals) {
    it(`${name} is a usage error (status 2)`, async (t) => {
      const scratch = scratchDir(files);
      t.after(scratch.cleanup);
      const result = await runCli(['serve', 'agent', ...flags, '--a2a-extended-card', 'e.json'], { cwd: scratch.dir });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    });
  }

  it('a2a_extended_card in --config is read the same way', async (t) => {
    const config = { a2a_extended_card: { skills: [{ id: 'x', name: 'n', description: 'd', colour: 'red' }] } };
    const scratch = scratchDir({ 'c.json': JSON.stringify(config) });
    t.after(scratch.cleanup);
    const result = await runCli(['serve', 'agent', '--a2a', '--api-key', 'cli-extended-key-1', '--config', 'c.json'], {
      cwd: scratch.dir,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /c\.json: \/a2a_extended_card\.skills\[0\]: must be an A2A AgentSkill/);
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

  it('--a2a-binding sends over the binding named, whatever the card prefers', async (t) => {
    const agent = await startStreamingSdkAgent({ order: ['JSONRPC', 'HTTP+JSON', 'GRPC'] });
    t.after(() => agent.close());
    for (const [binding, url] of [
      ['HTTP+JSON', `${agent.url}/rest`],
      ['GRPC', /^grpc:\/\/127\.0\.0\.1:\d+$/],
    ] as const) {
      const result = await runCli(['send', agent.url, 'hi', '--protocol', 'a2a', '--a2a-binding', binding, '--json'], {
        cwd: ROOT,
      });
      assert.equal(result.code, 0, result.stderr);
      const task = JSON.parse(result.stdout);
      assert.equal(task.state, 'completed');
      if (typeof url === 'string') assert.equal(task.metadata.a2a_remote.url, url);
      else assert.match(task.metadata.a2a_remote.url, url);
    }
  });

  it('a missing text, an unknown protocol or binding is a usage error', async () => {
    for (const args of [
      ['send', 'http://127.0.0.1:1'],
      ['send', 'http://127.0.0.1:1', 'x', '--protocol', 'smoke'],
      ['send', 'http://127.0.0.1:1', 'x', '--a2a-binding', 'SOAP'],
    ]) {
      const result = await runCli(args, { cwd: ROOT });
      assert.equal(result.code, 2);
      assertNoStackTrace(result);
    }
  });
});
