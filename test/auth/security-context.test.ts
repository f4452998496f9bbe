// SecurityContext defaults and the local expiry check (spec: SecurityContext).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecurityContext, isExpired, NaiveTimestampError } from '../../src/auth/security-context.js';
import { InvalidArgumentError } from '../../src/core/errors.js';

describe('createSecurityContext', () => {
  it('defaults: no expiry, issued now (UTC), a fresh empty metadata object each time', () => {
    const before = Date.now();
    const a = createSecurityContext({ principalId: 'p', token: 't' });
    const b = createSecurityContext({ principalId: 'p', token: 't' });
    assert.equal(a.expires_at, null);
    assert.match(a.issued_at!, /Z$/);
    assert.ok(Date.parse(a.issued_at!) >= before - 1);
    assert.deepEqual(a.metadata, {});
    assert.notEqual(a.metadata, b.metadata);
  });
});

describe('isExpired', () => {
  const at = new Date('2026-01-01T12:00:00Z');
  for (const [expiresAt, expected] of [
    [null, false],
    ['2026-01-01T11:59:59Z', true],
    ['2026-01-01T12:00:00Z', false],
    ['2026-01-01T12:00:00.000Z', false],
    ['2026-01-01T12:00:01Z', false],
    ['2026-01-01T13:00:00+01:00', false],
    ['2026-01-01T12:59:59+01:00', true],
    ['2026-01-01T06:59:59-0500', true],
    ['2026-01-01t11:00:00z', true],
  ] as const) {
    it(`expires_at ${JSON.stringify(expiresAt)} at 12:00:00Z: ${expected}`, () => {
      assert.equal(isExpired({ expires_at: expiresAt }, at), expected);
    });
  }

  for (const value of ['tomorrow', '2026-13-01T00:00:00Z', '2025-02-29T00:00:00Z', '2026-01-01T25:00:00Z', '']) {
    it(`an invalid timestamp ${JSON.stringify(value)} is a ValueError (InvalidArgumentError)`, () => {
      assert.throws(() => isExpired({ expires_at: value }, at), InvalidArgumentError);
    });
  }

  it('a number (an OAuth expires_in copied as it stands) is an invalid timestamp', () => {
    assert.throws(() => isExpired({ expires_at: 3600 as never }, at), InvalidArgumentError);
  });

  for (const value of ['2026-01-01T12:00:00', '2026-01-01 12:00:00.5']) {
    it(`a timestamp without a zone ${JSON.stringify(value)} is a TypeError (NaiveTimestampError)`, () => {
      assert.throws(
        () => isExpired({ expires_at: value }, at),
        (error: unknown) => error instanceof TypeError && error instanceof NaiveTimestampError,
      );
    });
  }
});
