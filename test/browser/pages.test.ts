// The agent's HTML pages in a real browser (headless Chromium through playwright-core): what a
// person sees on GET /status and GET /chat, and the chat window talking to POST /chat.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AgentServer } from '../../src/agent/agent-server.js';
import { OpenAIChatModel } from '../../src/llm/providers/openai-chat.js';
import { EchoModel, deferred, startAgent, userTask, type Harness } from '../support/agent-harness.js';
import { startOpenAIServer } from '../llm/fake-openai-server.js';
import { weatherTool, weatherTurns } from '../llm/weather-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = fileURLToPath(new URL('../../.tmp/status.png', import.meta.url));

let browser: Browser;

/** A fresh page that records console errors and failed requests. */
async function openPage(t: { after(fn: () => Promise<void>): void }): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  t.after(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // A failed load is reported below with its URL.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    // Browsers ask for /favicon.ico on their own; the pages declare no icon, so it is a 404.
    if (response.status() >= 400 && new URL(response.url()).pathname !== '/favicon.ico') {
      problems.push(`HTTP ${response.status()} for ${response.url()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

describe('agent pages in a browser', { skip: !existsSync(CHROMIUM) && `${CHROMIUM} is not installed` }, () => {
  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
  });

  after(async () => {
    await browser?.close();
  });

  test('/status shows the agent name, ready, its tasks counted by state (no ids) and its metrics', async (t) => {
    const h: Harness = await startAgent('http', {
      name: 'browser-status-agent',
      description: 'An agent looked at through a browser.',
      role: 'demo',
      tags: ['browser', 'status'],
    });
    t.after(() => h.close());
    const done = await h.client.sendTask(userTask('browser-task-1', 'hello from the test'));
    assert.equal(done.state, 'completed');
    const { page, problems } = await openPage(t);
    const response = await page.goto(new URL('/status', h.url).href);
    assert.equal(response?.status(), 200);

    assert.equal(await page.title(), 'browser-status-agent · parley status');
    assert.equal((await page.locator('h1').innerText()).trim(), 'browser-status-agent');
    const badge = page.locator('#status');
    assert.equal((await badge.innerText()).trim(), 'ready');
    assert.ok(await badge.isVisible());
    const completed = page.locator('#tasks [data-state="completed"]');
    assert.ok(await completed.isVisible());
    assert.equal((await completed.innerText()).trim(), '1');
    assert.equal(await page.getByText('browser-task-1').count(), 0, 'task ids are not shown');
    const started = page.locator('[data-metric="requests_started"]');
    assert.ok(await started.isVisible());
    assert.ok(Number(await started.innerText()) >= 1, 'requests_started shows the task request');
    const metricLabels = await page.locator('.metric .muted').allInnerTexts();
    assert.ok(metricLabels.includes('requests started'));
    const body = await page.locator('body').innerText();
    assert.match(body, /An agent looked at through a browser\./);
    assert.match(body, /browser, status/);

    mkdirSync(fileURLToPath(new URL('../../.tmp/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.deepEqual(problems, []);
  });

  test('/chat with a model: type, Send, and the reply appears; the session carries on', async (t) => {
    const model = new EchoModel();
    const h = await startAgent('http', { name: 'browser-chat-agent', llm: model });
    t.after(() => h.close());
    const { page, problems } = await openPage(t);
    await page.goto(new URL('/chat', h.url).href);
    assert.match(await page.locator('header').innerText(), /model echo-model/);

    await page.locator('#message').fill('hello browser');
    await page.getByRole('button', { name: 'Send' }).click();
    const replies = page.locator('#log .turn-agent');
    await replies.first().waitFor();
    assert.equal(await page.locator('#log .turn-user').first().innerText(), 'you: hello browser');
    assert.equal(await replies.first().innerText(), 'agent: echo: hello browser');
    assert.equal(await page.locator('#message').inputValue(), '', 'the input is cleared');

    await page.locator('#message').fill('second');
    await page.locator('#message').press('Enter');
    await replies.nth(1).waitFor();
    assert.equal(await replies.nth(1).innerText(), 'agent: echo: second');
    // The page sent the session id back: the model saw the whole conversation.
    assert.deepEqual(
      model.calls.at(-1)!.map((turn) => turn.content),
      ['hello browser', 'echo: hello browser', 'second'],
    );
    assert.deepEqual(problems, []);
  });

  test('/chat on sse streams the answer as it arrives, shows the tool the model used, and keeps the session', async (t) => {
    const modelServer = await startOpenAIServer(t);
    const llm = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseUrl: `${modelServer.baseUrl}/v1` });
    const agent = new AgentServer({
      name: 'browser-llm-agent',
      transport: 'sse',
      url: 'http://127.0.0.1:0',
      llm,
      tools: [weatherTool()],
    });
    await agent.start();
    t.after(() => agent.stop());
    const release = deferred<void>();
    const [ask, answer] = weatherTurns();
    modelServer.script(ask!, { ...answer!, hold: { chunks: 1, until: release.promise } }, { text: ['You asked about Lisbon.'] });

    const { page, problems } = await openPage(t);
    await page.goto(new URL('/chat', agent.url).href);
    assert.equal(await page.locator('#log').getAttribute('data-mode'), 'stream');
    await page.locator('#message').fill('Weather in Lisbon?');
    await page.getByRole('button', { name: 'Send' }).click();
    const agentLines = page.locator('#log .turn-agent');
    // The first half of the answer is on the page while the model still holds the rest.
    await agentLines.filter({ hasText: 'Sunny,' }).waitFor();
    assert.equal(await agentLines.last().textContent(), 'agent: Sunny, ');
    assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true, 'no second message while one streams');
    release.resolve();
    await agentLines.filter({ hasText: '21 degrees.' }).waitFor();
    assert.deepEqual(await agentLines.allTextContents(), ['agent: Let me check.', 'agent: Sunny, 21 degrees.']);
    assert.deepEqual(await page.locator('#log .turn-tool').allTextContents(), [
      'tool: get_weather {"city":"Lisbon"}',
      'tool: {"city":"Lisbon","sky":"clear","celsius":21}',
    ]);

    await page.getByRole('button', { name: 'Send' }).and(page.locator(':enabled')).waitFor();
    await page.locator('#message').fill('Which city was it?');
    await page.locator('#message').press('Enter');
    await agentLines.filter({ hasText: 'You asked about Lisbon.' }).waitFor();
    // The page kept its session: the model read the first exchange, tool call included.
    const sent = modelServer.requests.at(-1)!.body.messages.map((message: { role: string }) => message.role);
    assert.deepEqual(sent, ['user', 'assistant', 'tool', 'assistant', 'user']);
    assert.deepEqual(problems, []);
  });

  test('/chat without a model shows the fallback message', async (t) => {
    const h = await startAgent('http', { name: 'browser-no-model' });
    t.after(() => h.close());
    const { page, problems } = await openPage(t);
    await page.goto(new URL('/chat', h.url).href);
    const fallback = page.locator('#fallback');
    assert.ok(await fallback.isVisible());
    assert.match(await fallback.innerText(), /no language model configured, so chat is not available/);
    assert.equal(await page.locator('form').count(), 0);
    assert.equal((await page.locator('h1').innerText()).trim(), 'browser-no-model');
    assert.deepEqual(problems, []);
  });
});
