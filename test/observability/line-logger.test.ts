// The plain logger `parley serve` falls back to without pino writes what pino writes: the same
// JSON fields in the same order (time aside), an Error field as pino's err serializer shows it,
// the same level filter; on a terminal one readable line with the level and message first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLineLogger } from '../../src/observability/line-logger.js';
import { resolveLogger, type Logger } from '../../src/observability/logger.js';

function capture(isTTY = false) {
  const written: string[] = [];
  return { written, destination: { isTTY, write: (line: string) => void written.push(line) } };
}

/** One parsed line without its time, which differs between any two writes. */
function untimed(line: string): Record<string, unknown> {
  const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
  assert.equal(typeof time, 'number');
  return rest;
}

describe('line logger (the CLI without pino)', () => {
  const entries: ReadonlyArray<readonly [keyof Logger & string, object, string]> = [
    ['info', { transport: 'http', url: 'http://127.0.0.1:1' }, 'listening'],
    ['warn', { request_id: 'r-1', operation: null, status: 401, error: 'unauthenticated', principal: undefined }, 'request'],
    ['error', { err: new TypeError('boom'), transport: 'sse', where: 'a handler' }, 'an error escaped a handler'],
    ['debug', { transport: 'http' }, 'below info: not written'],
  ];

  it('writes the lines pino writes, field for field, at the same level', async () => {
    const fromPino = capture();
    const pino = (await resolveLogger({ level: 'info', destination: fromPino.destination })) as Logger;
    const fromLines = capture();
    const lines = createLineLogger('info', fromLines.destination, false);
    for (const [level, fields, message] of entries) {
      (pino[level as 'info'] as Logger['info'])(fields, message);
      (lines[level as 'info'] as Logger['info'])(fields, message);
    }
    assert.equal(fromLines.written.length, 3);
    assert.ok(fromLines.written.every((line) => line.endsWith('}\n')));
    assert.deepEqual(
      fromLines.written.map((line) => Object.keys(untimed(line))),
      fromPino.written.map((line) => Object.keys(untimed(line))),
    );
    assert.deepEqual(fromLines.written.map(untimed), fromPino.written.map(untimed));
  });

  it('answers isLevelEnabled as its level says', () => {
    const logger = createLineLogger('warn', capture().destination, false);
    const enabled = (['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const).filter((level) =>
      logger.isLevelEnabled(level),
    );
    assert.deepEqual(enabled, ['warn', 'error', 'fatal']);
  });

  it('on a terminal: one readable line, level and message first, then the fields', () => {
    const { written, destination } = capture(true);
    createLineLogger('info', destination, true).warn({ status: 404, operation: 'getTask' }, 'request');
    assert.equal(written.length, 1);
    assert.match(written[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: request \{"status":404,"operation":"getTask"\}\n$/);
  });
});
