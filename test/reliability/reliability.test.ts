// The reliability suite (issue 14): every row of rows.ts over every transport it names, against
// a server in a child process (fixtures/serve.ts) with small limits and timeouts. After each
// row the server must be alive and answer a normal task; a row that killed it fails with the
// server's crash report, and the next row gets a fresh server.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { REST_ROWS } from './a2a-rest-rows.js';
import { ROWS } from './rows.js';
import { ChildServer, DEFAULT_CONFIG, SERVED, ServerSlot, assertStillServing, type ServerConfig } from './setup.js';

/** The suite's server configuration with a row's own transport options over it. */
function withOptions(options: Readonly<Record<string, unknown>>): ServerConfig {
  return { ...DEFAULT_CONFIG, transportOptions: { ...DEFAULT_CONFIG.transportOptions, ...options } };
}

// Transports run side by side, rows one after another on each. The timeouts only guard hangs.
describe('reliability: one request must not take the server down or expose data', { concurrency: SERVED.length }, () => {
  for (const kind of SERVED) {
    describe(kind, { concurrency: 1, timeout: 300_000 }, () => {
      const slot = new ServerSlot(kind);
      after(() => slot.stop());
      for (const row of [...ROWS, ...REST_ROWS].filter((candidate) => candidate.transports.includes(kind))) {
        it(`[${row.defect}] ${row.name}`, { timeout: 60_000 }, async (t) => {
          const unable = row.skip?.();
          if (unable) return t.skip(unable);
          const server = row.transportOptions
            ? await ChildServer.start(kind, withOptions(row.transportOptions))
            : await slot.ensure();
          if (row.transportOptions) t.after(() => server.stop());
          try {
            await row.run(server);
          } catch (error) {
            // Give a crash a moment to be reported as an exit before looking.
            await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 500))]);
            // A dead server explains the failure better than the connection error it caused.
            assert.ok(
              server.alive,
              `the ${kind} server died during the row (${server.describeExit()})\nstderr: ${server.stderr}`,
            );
            throw error;
          }
          await assertStillServing(server);
        });
      }
    });
  }
});
