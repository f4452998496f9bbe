// The API key and Basic authenticators (spec: Authentication, Built-in authenticators), one
// case per rule of their table rows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { AuthenticationError } from '../../src/auth/authentication-error.js';
import { BasicAuthenticator } from '../../src/auth/basic.js';
import { ConfigError } from '../../src/core/errors.js';

async function refusal(promise: Promise<unknown>): Promise<AuthenticationError> {
  const error = await promise.then(
    () => assert.fail('accepted'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AuthenticationError, String(error));
  return error;
}

describe('ApiKeyAuthenticator', () => {
  const keys = new ApiKeyAuthenticator({ validKeys: { sk_live_0123456789: ['tasks:write'], 'second-key-abcdef': [] } });

  it('accepts a configured key: principal api-key- plus its first eight characters, token the whole key, no expiry', async () => {
    const context = await keys.authenticate('sk_live_0123456789');
    assert.equal(context.principal_id, 'api-key-sk_live_');
    assert.equal(context.token, 'sk_live_0123456789');
    assert.equal(context.expires_at, null);
    assert.deepEqual(context.metadata, {}, 'scopes are not copied into the context');
  });

  it('accepts every configured key (rotation: old and new valid together)', async () => {
    assert.equal((await keys.authenticate('second-key-abcdef')).principal_id, 'api-key-second-k');
  });

  for (const [name, credential] of [
    ['a wrong key', 'sk_live_9999999999'],
    ['a prefix of a valid key', 'sk_live_01234'],
    ['a valid key with more after it', 'sk_live_0123456789X'],
    ['a valid key with a space after it', 'sk_live_0123456789 '],
    ['an empty credential', ''],
    ['whitespace only', '   '],
    ['a key of the prototype', '__proto__'],
    ['a key that differs in case', 'SK_LIVE_0123456789'],
  ]) {
    it(`refuses ${name} with "Invalid API key"`, async () => {
      const error = await refusal(keys.authenticate(credential!));
      assert.equal(error.code, 'invalid_api_key');
      assert.equal(error.message, 'Invalid API key');
    });
  }

  it('advertises apiKey with no HTTP scheme and no metadata; refresh returns the same context', async () => {
    assert.deepEqual(
      { ...keys.scheme, description: undefined },
      { type: 'apiKey', scheme: null, description: undefined, metadata: {} },
    );
    const context = await keys.authenticate('second-key-abcdef');
    assert.equal(await keys.refreshToken(context), context);
  });

  it('authenticateNow answers without a Promise: a fresh context each time, a refusal thrown at once', () => {
    const first = keys.authenticateNow('sk_live_0123456789');
    assert.ok(!(first instanceof Promise));
    assert.equal(first.principal_id, 'api-key-sk_live_');
    first.metadata!.edited = true;
    assert.deepEqual(keys.authenticateNow('sk_live_0123456789').metadata, {}, 'an edit to one context is not seen by the next');
    assert.throws(
      () => keys.authenticateNow('sk_live_01234567890'),
      (error: unknown) => error instanceof AuthenticationError && error.code === 'invalid_api_key',
    );
  });

  it('a key list is the one it was built with: a key removed for rotation is refused by the new authenticator', async () => {
    assert.equal(keys.authenticateNow('sk_live_0123456789').principal_id, 'api-key-sk_live_');
    const rotated = new ApiKeyAuthenticator({ validKeys: { 'second-key-abcdef': [] } });
    await refusal(rotated.authenticate('sk_live_0123456789'));
    assert.equal(rotated.authenticateNow('second-key-abcdef').principal_id, 'api-key-second-k');
  });

  it('keeps scopes for application policy without enforcing them', () => {
    assert.deepEqual(keys.scopesOf('sk_live_0123456789'), ['tasks:write']);
  });

  for (const [name, validKeys] of [
    ['no keys', {}],
    ['an empty key', { '': [] }],
    ['scopes that are not a list', { k: 'tasks' }],
    ['a list instead of a mapping', ['k']],
  ] as const) {
    it(`refuses to be built with ${name}`, () => {
      assert.throws(() => new ApiKeyAuthenticator({ validKeys: validKeys as never }), ConfigError);
    });
  }
});

describe('BasicAuthenticator', () => {
  const basic = new BasicAuthenticator({ validCredentials: { alice: 'wonder:land', bob: 'builder' } });
  const b64 = (text: string) => Buffer.from(text).toString('base64');

  it('decodes strict Base64 first: principal is the username, token the original string, no expiry', async () => {
    const context = await basic.authenticate(b64('bob:builder'));
    assert.equal(context.principal_id, 'bob');
    assert.equal(context.token, b64('bob:builder'));
    assert.equal(context.expires_at, null);
  });

  it('splits at the first colon only, so a password may hold colons', async () => {
    assert.equal((await basic.authenticate(b64('alice:wonder:land'))).principal_id, 'alice');
  });

  it('falls back to the raw text when it is not strict Base64', async () => {
    const context = await basic.authenticate('alice:wonder:land');
    assert.equal(context.principal_id, 'alice');
    assert.equal(context.token, 'alice:wonder:land');
  });

  it('authenticateNow answers without a Promise and throws a refusal at once', () => {
    const context = basic.authenticateNow(b64('bob:builder'));
    assert.ok(!(context instanceof Promise));
    assert.equal(context.principal_id, 'bob');
    assert.throws(
      () => basic.authenticateNow(b64('bob:builder2')),
      (error: unknown) => error instanceof AuthenticationError && error.code === 'invalid_basic_credentials',
    );
  });

  it('advertises http / basic; refresh returns the same context', async () => {
    assert.equal(basic.scheme.type, 'http');
    assert.equal(basic.scheme.scheme, 'basic');
    const context = await basic.authenticate('bob:builder');
    assert.equal(await basic.refreshToken(context), context);
  });

  for (const [name, credential] of [
    ['no colon (Base64)', b64('bobbuilder')],
    ['no colon (raw)', 'bobbuilder'],
    ['a wrong password', b64('bob:builder2')],
    ['a password prefix', b64('bob:build')],
    ['an unknown user', b64('carol:builder')],
    ['a user name differing in case', b64('Bob:builder')],
    ['an empty credential', ''],
    ['a colon only', ':'],
    ['Base64 without its padding (not strict), read as raw text', b64('bob:builder').replace(/=+$/, '')],
    ['Base64 of invalid UTF-8 read as raw text', Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')],
    ['a prototype key as the user', b64('__proto__:x')],
  ]) {
    it(`refuses ${name}`, async () => {
      const error = await refusal(basic.authenticate(credential!));
      assert.equal(error.code, 'invalid_basic_credentials');
    });
  }

  for (const [name, validCredentials] of [
    ['no users', {}],
    ['a username with a colon', { 'a:b': 'x' }],
    ['a password that is not a string', { a: 1 }],
  ] as const) {
    it(`refuses to be built with ${name}`, () => {
      assert.throws(() => new BasicAuthenticator({ validCredentials: validCredentials as never }), ConfigError);
    });
  }
});
