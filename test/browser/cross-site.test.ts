// A page from another site (another port of 127.0.0.1, so another origin) tries to drive a
// local agent that has no authenticator, in real headless Chromium: a POST with a Blob body (no
// content type, so no CORS preflight) and a WebSocket, which has no CORS at all. The agent's
// browser-origin check must keep its handler from ever running.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { AgentServer } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { userTask } from '../support/agent-harness.js';

const CHROMIUM = '/usr/bin/chromium';

let browser: Browser;

/** An agent without an authenticator whose handler records each run. */
async function agent(t: { after(fn: () => unknown): void }, transport: 'http' | 'websocket') {
  const runs: string[] = [];
  const handler: AgentHandler = ({ input }) => {
    runs.push(input);
    return { text: `secret answer to ${input}` };
  };
  const scheme = transport === 'http' ? 'http' : 'ws';
  const server = new AgentServer({ name: 'local-agent', handler, transport, url: `${scheme}://127.0.0.1:0` });
  await server.start();
  t.after(() => server.stop());
  return { url: server.url, runs };
}

/** The "other site": a blank page served from its own port of 127.0.0.1. */
async function otherSite(t: { after(fn: () => unknown): void }): Promise<string> {
  const site = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title><p>another site</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => site.close(() => resolve())));
  return `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
}

describe('a page on another site cannot drive a local agent', {
  skip: !existsSync(CHROMIUM) && `${CHROMIUM} is not installed`,
}, () => {
  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  });

  after(async () => {
    await browser?.close();
  });

  test('fetch POST /tasks/ with a Blob body: refused with 403, the handler never runs', async (t) => {
    const { url, runs } = await agent(t, 'http');
    const context = await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    await page.goto(await otherSite(t));
    // `no-cors`: the page need not read the answer to make the agent work, and the browser
    // sends the request all the same; the test reads the status the agent sent.
    const answered = page.waitForResponse((response) => response.url() === new URL('/tasks/', url).href);
    await page.evaluate(
      async ({ target, task }) => {
        await fetch(target, { method: 'POST', mode: 'no-cors', body: new Blob([task]) });
      },
      { target: new URL('/tasks/', url).href, task: JSON.stringify(userTask('from-elsewhere', 'spend money')) },
    );
    assert.equal((await answered).status(), 403);
    assert.deepEqual(runs, []);
  });

  test('new WebSocket to the agent: the handshake is refused, nothing is sent or read', async (t) => {
    const { url, runs } = await agent(t, 'websocket');
    const context = await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    await page.goto(await otherSite(t));
    const outcome = await page.evaluate(
      ({ target, request }) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(target);
          // Opened: the page sends a call and reads its answer (what the check must prevent).
          socket.onopen = () => socket.send(request);
          socket.onmessage = (event) => resolve(`read: ${event.data}`);
          socket.onclose = () => resolve('refused');
        }),
      {
        target: url,
        request: JSON.stringify({ id: 'r1', method: 'POST', path: '/tasks/', data: userTask('ws-elsewhere', 'leak it') }),
      },
    );
    assert.equal(outcome, 'refused');
    assert.deepEqual(runs, []);
  });
});
