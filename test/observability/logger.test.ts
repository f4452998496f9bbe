// The `logger` option made into a logger: JSON lines for pipes and files, pino-pretty's
// readable lines for a terminal (the choice function, and both outputs written for real),
// nothing at all for `silent` or no option, and a ready logger used as it is. Errors that
// escape a handler go to the log, with their stack, instead of stderr.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setRequestReadHook } from '../../src/transport/envelope.js';
import { createTransport } from '../../src/transport/factory.js';
import { prettyOutput, resolveLogger, type Logger } from '../../src/observability/logger.js';
import { echoTask, table } from '../support/transport-fixtures.js';
import { RawPeer } from '../support/websocket-peers.js';

function capture(isTTY?: boolean) {
  const written: string[] = [];
  return { written, destination: { isTTY, write: (line: string) => void written.push(line) } };
}

describe('logger option', () => {
  it('human-readable on a terminal, JSON anywhere else, unless told', () => {
    assert.equal(prettyOutput({ isTTY: true }), true);
    assert.equal(prettyOutput({ isTTY: false }), false);
    assert.equal(prettyOutput({}), false);
    assert.equal(prettyOutput({ isTTY: true }, false), false);
    assert.equal(prettyOutput({}, true), true);
  });

  it('no option, or silent, is no logger at all', async () => {
    assert.equal(await resolveLogger(undefined), null);
    assert.equal(await resolveLogger({ level: 'silent' }), null);
    const silent = await resolveLogger({ level: 'info', destination: capture().destination });
    (silent as unknown as { level: string }).level = 'silent';
    assert.equal(await resolveLogger(silent!), null, 'a ready logger set to silent');
  });

  it('a ready logger is used as it is', async () => {
    const made = await resolveLogger({ level: 'debug', destination: capture().destination });
    assert.ok(made);
    assert.equal(await resolveLogger(made), made);
  });

  it('writes one JSON line per entry to a pipe or file, at the level asked', async () => {
    const { written, destination } = capture(false);
    const logger = (await resolveLogger({ level: 'warn', destination })) as Logger;
    logger.info({ transport: 'http' }, 'not at warn');
    logger.warn({ transport: 'http', status: 404 }, 'request');
    assert.equal(written.length, 1);
    const line = JSON.parse(written[0]!) as Record<string, unknown>;
    assert.deepEqual([line.level, line.msg, line.transport, line.status], [40, 'request', 'http', 404]);
    assert.equal(typeof line.time, 'number');
  });

  it('writes readable lines to a terminal (pino-pretty), without colour when told it is not one', async () => {
    const { written, destination } = capture(true);
    const logger = (await resolveLogger({ level: 'info', destination })) as Logger;
    logger.info({ transport: 'http', status: 200 }, 'request');
    const text = written.join('');
    assert.match(text, /INFO/);
    assert.match(text, /request/);
    assert.match(text, /"status":200/);
    assert.throws(() => JSON.parse(text), 'not JSON');
    assert.equal(text.split('\n').filter(Boolean).length, 1, 'one line');
    const plain = capture(false);
    const forced = (await resolveLogger({ level: 'info', destination: plain.destination, pretty: true })) as Logger;
    forced.info({ transport: 'http' }, 'request');
    assert.ok(!plain.written.join('').includes('\u001b['), 'no colour codes off a terminal');
    assert.match(plain.written.join(''), /INFO/);
  });

  it('an error escaping a handler is logged at error with its stack, not written to stderr', async (t) => {
    const { written, destination } = capture(false);
    const logger = await resolveLogger({ level: 'info', destination });
    const server = await createTransport('websocket', 'ws://127.0.0.1:0');
    await server.start(table(echoTask()), { logger });
    t.after(() => server.stop());
    const stderr = t.mock.method(console, 'error', () => undefined);
    const injected = new Error('injected reader failure');
    setRequestReadHook(() => {
      throw injected;
    });
    t.after(() => setRequestReadHook(null));
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    peer.send({ id: 'boom', method: 'POST', path: '/tasks/', data: { id: 'boom' } });
    assert.equal((await peer.closed).code, 1011);
    assert.equal(stderr.mock.callCount(), 0);
    const escaped = written.map((text) => JSON.parse(text) as Record<string, any>).filter((line) => line.level === 50);
    assert.equal(escaped.length, 1, written.join(''));
    assert.equal(escaped[0]!.transport, 'websocket');
    assert.equal(escaped[0]!.err.message, 'injected reader failure');
    assert.match(escaped[0]!.err.stack, /injected reader failure/);
  });
});
