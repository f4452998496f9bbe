// Which transports serve the browser pages (spec: Agent endpoints, the `GET /status` row: "HTTP
// and SSE transports"; "WebSocket, gRPC and runtime transports do not serve browser pages";
// docs/wire.md: `GET /chat` is not served on WebSocket, gRPC, runtime). Over http and runtime
// see card-health-chat.test.ts and http-input.test.ts; these are the other three.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { createTransport, loadBinding } from '../../src/transport/factory.js';
import { Transport } from '../../src/transport/transport.js';
import { listenUrl, rawHttp, rejectsWithStatus, userTask } from '../support/agent-harness.js';

const LISTEN = { sse: 'http://127.0.0.1:0', websocket: 'ws://127.0.0.1:0', grpc: 'grpc://127.0.0.1:0' } as const;

/** Starts an agent on `kind` and a client of the same kind; both stop when the test ends. */
async function agentOn(t: TestContext, kind: keyof typeof LISTEN, name: string) {
  const agent = new AgentServer({ name, transport: kind, url: LISTEN[kind] });
  await agent.start();
  const transport = await createTransport(kind, agent.url);
  t.after(async () => {
    await transport.stop();
    await agent.stop();
  });
  return { agent, client: new AgentOperationsClient(transport) };
}

describe('browser pages by transport', () => {
  test('an agent on sse serves GET /status and GET /chat as HTML over plain http', async (t) => {
    const { agent, client } = await agentOn(t, 'sse', 'sse-pages');
    await client.sendTask(userTask('sse-page-task', 'hi'));
    const status = await rawHttp(agent.url, { path: '/status' });
    assert.equal(status.status, 200);
    assert.match(String(status.headers['content-type']), /^text\/html/);
    assert.match(status.text, /<h1>sse-pages<\/h1>/);
    assert.ok(status.text.includes('<td data-state="completed">1</td>'), 'the page counts the task the agent ran');
    assert.ok(!status.text.includes('sse-page-task'), 'but does not show its id');
    const chat = await rawHttp(agent.url, { path: '/chat' });
    assert.equal(chat.status, 200);
    assert.match(String(chat.headers['content-type']), /^text\/html/);
    assert.match(chat.text, /no language model configured/);
    // The sse client reaches the same pages.
    assert.match(await client.getStatusPage(), /<h1>sse-pages<\/h1>/);
  });

  test('an agent on websocket serves no pages: over the wire they are unknown endpoints (404)', async (t) => {
    const { agent, client } = await agentOn(t, 'websocket', 'ws-pages');
    assert.equal((await client.getCard()).name, 'ws-pages', 'the agent itself answers');
    await rejectsWithStatus(client.getStatusPage(), 404, 'not_found');
    await rejectsWithStatus(client.getChatPage(), 404, 'not_found');
    // A browser asking its port for the page is told to upgrade, not given HTML.
    const browser = await rawHttp(agent.url.replace(/^ws:/, 'http:'), { path: '/status' });
    assert.equal(browser.status, 426);
    assert.match(String(browser.headers['content-type']), /^application\/json/);
    assert.equal(browser.json().error.code, 'upgrade_required');
  });

  test('an agent on grpc serves no pages: over the wire they are unknown endpoints (404), plain HTTP is refused', async (t) => {
    const { agent, client } = await agentOn(t, 'grpc', 'grpc-pages');
    assert.equal((await client.getCard()).name, 'grpc-pages', 'the agent itself answers');
    await rejectsWithStatus(client.getStatusPage(), 404, 'not_found');
    await rejectsWithStatus(client.getChatPage(), 404, 'not_found');
    // A plain HTTP/2 GET for the page is not gRPC: grpc-js refuses it (415), with no page.
    const session = http2Connect(agent.url.replace(/^grpc:/, 'http:'));
    session.on('error', () => undefined);
    t.after(() => session.close());
    const answer = await new Promise<{ status: unknown; contentType: unknown; body: string }>((resolve, reject) => {
      const stream = session.request({ ':method': 'GET', ':path': '/status' });
      let headers: Record<string, unknown> = {};
      let body = '';
      stream.on('response', (h) => (headers = h));
      stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      stream.on('end', () => resolve({ status: headers[':status'], contentType: headers['content-type'], body }));
      stream.on('error', reject);
      stream.end();
    });
    assert.equal(answer.status, 415);
    assert.doesNotMatch(String(answer.contentType ?? ''), /text\/html/);
    assert.doesNotMatch(answer.body, /<html|<!doctype/i);
  });
});

describe("pages follow the transport's pages capability, not its name", () => {
  /** An agent on the real binding of `kind` with its `pages` flag set to `pages`. */
  async function agentWithPages(t: TestContext, kind: 'http' | 'runtime', pages: boolean) {
    const binding = await loadBinding(kind);
    const url = listenUrl(kind);
    const agent = new AgentServer({
      name: `${kind}-pages-${pages}`,
      transport: new Transport({ ...binding, capabilities: { ...binding.capabilities, pages } }, url),
    });
    await agent.start();
    const transport = await createTransport(kind, agent.url);
    t.after(async () => {
      await transport.stop();
      await agent.stop();
    });
    return new AgentOperationsClient(transport);
  }

  test('an http binding that declares no pages serves none', async (t) => {
    const client = await agentWithPages(t, 'http', false);
    await rejectsWithStatus(client.getStatusPage(), 404, 'not_found');
    await rejectsWithStatus(client.getChatPage(), 404, 'not_found');
  });

  test('a runtime binding that declares pages serves them', async (t) => {
    const client = await agentWithPages(t, 'runtime', true);
    assert.match(await client.getStatusPage(), /<h1>runtime-pages-true<\/h1>/);
    assert.match(await client.getChatPage(), /no language model configured/);
  });
});
