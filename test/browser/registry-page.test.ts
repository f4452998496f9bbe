// The registry's GET /status in a real browser (headless Chromium through playwright-core):
// ready, the store and TTL in use, the live agents with their cards, last seen and age, the
// filter form narrowing the list with discovery's matching, and the transport's counters.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { card, startRegistry } from '../support/registry-harness.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = fileURLToPath(new URL('../../.tmp/registry-status.png', import.meta.url));

let browser: Browser;

describe('registry status page in a browser', { skip: !existsSync(CHROMIUM) && `${CHROMIUM} is not installed` }, () => {
  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
        '--disable-sync',
      ],
    });
  });

  after(async () => {
    await browser?.close();
  });

  for (const kind of ['http', 'sse'] as const) {
    test(`/status over ${kind}: agents with cards, last seen and age; filters narrow the list`, async (t) => {
      const h = await startRegistry(t, kind, { store: 'sqlite', entryTtlSeconds: 600 });
      await h.client.register(
        card('http://127.0.0.1:9001', 'translator', {
          role: 'worker',
          tags: ['nlp', 'fr'],
          description: 'Translates <b>text</b>.',
        }),
      );
      h.clock.advance(75);
      await h.client.register(card('http://127.0.0.1:9002', 'planner', { role: 'planner', tags: ['nlp'] }));
      await h.client.register(card('http://127.0.0.1:9003', 'summarizer', { role: 'worker', tags: ['en'] }));

      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      t.after(() => context.close());
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('response', (response) => {
        if (response.status() >= 400 && new URL(response.url()).pathname !== '/favicon.ico')
          problems.push(`HTTP ${response.status()} ${response.url()}`);
      });

      const response = await page.goto(new URL('/status', h.url).href);
      assert.equal(response?.status(), 200);
      assert.equal(await page.title(), 'parley registry · status');
      assert.equal((await page.locator('#status').innerText()).trim(), 'ready');
      assert.match(await page.locator('#store').innerText(), /^sqlite .*registry\.db/);
      assert.match(await page.locator('#ttl').innerText(), /600 s/);
      assert.equal((await page.locator('#total').innerText()).trim(), '3');
      const rows = page.locator('#agents tr[data-url]');
      assert.equal(await rows.count(), 3);
      const translator = page.locator('#agents tr[data-url="http://127.0.0.1:9001"]');
      assert.ok(await translator.isVisible());
      assert.match(await translator.innerText(), /translator[\s\S]*Translates <b>text<\/b>\.[\s\S]*worker[\s\S]*nlp fr/);
      // The age ticks in the page from the registry's clock: 75 s at render, never less.
      const age = translator.locator('[data-last-seen]');
      assert.match(await age.innerText(), /^1 min 1\d s$/);
      assert.match(await translator.locator('time').innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
      // The card itself, on demand.
      await page.locator('#agents details').first().locator('summary').click();
      assert.match(await page.locator('#agents details[open] pre').innerText(), /"url": "http:\/\/127\.0\.0\.1:900\d"/);

      await page.locator('input[name="tags"]').fill('nlp');
      await page.locator('input[name="role"]').fill('worker');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/tags=nlp/);
      assert.equal(await page.locator('#agents tr[data-url]').count(), 1);
      assert.match(await page.locator('#summary').innerText(), /^1 of 3 live agents match/);
      assert.equal(await page.locator('input[name="tags"]').inputValue(), 'nlp');

      await page.locator('input[name="tags"]').fill('nlp,en');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/tags=nlp%2Cen/);
      assert.match(await page.locator('#empty').innerText(), /No live agent matches/);

      assert.ok(Number(await page.locator('[data-metric="requests_started"]').innerText()) >= 3);
      mkdirSync(fileURLToPath(new URL('../../.tmp/', import.meta.url)), { recursive: true });
      await page.goto(new URL('/status', h.url).href);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      assert.deepEqual(problems, []);
    });
  }
});
