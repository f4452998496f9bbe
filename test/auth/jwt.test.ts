// The Bearer JWT authenticator, rule by rule (spec: Authentication, Bearer JWT rules 1-7), and
// the token attacks of issue 15 as a table: every row must be refused with the spec's prefix.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { AuthenticationError } from '../../src/auth/authentication-error.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import { ConfigError } from '../../src/core/errors.js';

const SECRET = 'a-long-enough-test-secret-0123456789';
const NOW = new Date('2026-01-01T12:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const enc = new TextEncoder();

function sign(claims: Record<string, unknown>, alg = 'HS256', secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(enc.encode(secret));
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** A token assembled by hand, for headers and payloads jose would never produce. */
function forge(header: unknown, payload: unknown, alg: 'sha256' | 'none' = 'sha256'): string {
  const head = b64url(typeof header === 'string' ? header : JSON.stringify(header));
  const body = b64url(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const signature = alg === 'none' ? '' : createHmac('sha256', SECRET).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${signature}`;
}

const verifier = (options: Partial<ConstructorParameters<typeof JwtAuthenticator>[0]> = {}) =>
  new JwtAuthenticator({ secret: SECRET, now: () => NOW, ...options });

async function refused(authenticator: JwtAuthenticator, token: string): Promise<AuthenticationError> {
  const error = await authenticator.authenticate(token).then(
    () => assert.fail('the token was accepted'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AuthenticationError, String(error));
  assert.equal(error.code, 'invalid_token');
  assert.match(error.message, /^Token authentication failed: /);
  return error;
}

describe('JwtAuthenticator: constructor (rule 1)', () => {
  for (const [name, options, field] of [
    ['empty secret', { secret: '' }, 'secret'],
    ['empty byte secret', { secret: new Uint8Array() }, 'secret'],
    ['unsupported algorithm RS256', { secret: SECRET, algorithm: 'RS256' }, 'algorithm'],
    ['algorithm none', { secret: SECRET, algorithm: 'none' }, 'algorithm'],
    ['negative leeway', { secret: SECRET, leewaySeconds: -1 }, 'leewaySeconds'],
    ['fractional leeway', { secret: SECRET, leewaySeconds: 1.5 }, 'leewaySeconds'],
  ] as const) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => new JwtAuthenticator(options as never),
        (error: unknown) => error instanceof ConfigError && error.field === field,
      );
    });
  }
  it('defaults to HS256 and advertises http/bearer with the three algorithms, issuer and audience (rule 7)', () => {
    const jwt = new JwtAuthenticator({ secret: SECRET, issuer: 'https://issuer', audience: 'agents' });
    assert.deepEqual(jwt.scheme, {
      type: 'http',
      scheme: 'bearer',
      description: 'JWT bearer token signed with HS256',
      metadata: { algorithms: ['HS256', 'HS384', 'HS512'], issuer: 'https://issuer', audience: 'agents' },
    });
  });
});

describe('JwtAuthenticator: accepted tokens and the context (rules 3-5, 7)', () => {
  for (const algorithm of ['HS256', 'HS384', 'HS512'] as const) {
    it(`accepts a valid ${algorithm} token when configured for ${algorithm}`, async () => {
      const token = await sign({ sub: 'alice' }, algorithm);
      const context = await verifier({ algorithm }).authenticate(token);
      assert.equal(context.principal_id, 'alice');
      assert.equal(context.token, token);
    });
  }

  it('principal is sub, then client_id, then unknown; exp and iat become UTC ISO timestamps', async () => {
    assert.equal((await verifier().authenticate(await sign({ client_id: 'svc-7' }))).principal_id, 'svc-7');
    assert.equal((await verifier().authenticate(await sign({ scope: 'x' }))).principal_id, 'unknown');
    const context = await verifier().authenticate(await sign({ sub: 'bob', exp: NOW_S + 60, iat: NOW_S - 5 }));
    assert.equal(context.expires_at, '2026-01-01T12:01:00.000Z');
    assert.equal(context.issued_at, '2026-01-01T11:59:55.000Z');
  });

  it('a dictionary claim `metadata` becomes the context metadata; other unregistered claims go under metadata.claims', async () => {
    const token = await sign({ sub: 'c', iss: 'i', jti: 'j', metadata: { team: 'blue' }, scope: 'tasks:write', client_id: 'x' });
    const context = await verifier().authenticate(token);
    assert.deepEqual(context.metadata, { team: 'blue', claims: { scope: 'tasks:write', client_id: 'x' } });
  });

  it('refresh returns the same context', async () => {
    const jwt = verifier();
    const context = await jwt.authenticate(await sign({ sub: 'a' }));
    assert.equal(await jwt.refreshToken(context), context);
  });

  it('checks iss and aud only when configured; aud may be a list containing ours', async () => {
    assert.equal((await verifier().authenticate(await sign({ sub: 'a', iss: 'anyone', aud: 'anything' }))).principal_id, 'a');
    const strict = verifier({ issuer: 'https://issuer', audience: 'agents' });
    assert.equal(
      (await strict.authenticate(await sign({ sub: 'a', iss: 'https://issuer', aud: ['other', 'agents'] }))).principal_id,
      'a',
    );
  });
});

describe('JwtAuthenticator: leeway boundaries (rule 4)', () => {
  // exp: valid while now < exp + leeway. nbf and iat: valid while they are <= now + leeway.
  for (const [name, claims, leeway, accepted] of [
    ['exp one second ahead', { exp: NOW_S + 1 }, 0, true],
    ['exp exactly now', { exp: NOW_S }, 0, false],
    ['exp 5 s ago with leeway 6', { exp: NOW_S - 5 }, 6, true],
    ['exp 5 s ago with leeway 5 (exactly at the edge)', { exp: NOW_S - 5 }, 5, false],
    ['nbf exactly now', { nbf: NOW_S }, 0, true],
    ['nbf one second ahead', { nbf: NOW_S + 1 }, 0, false],
    ['nbf 5 s ahead with leeway 5 (exactly at the edge)', { nbf: NOW_S + 5 }, 5, true],
    ['nbf 6 s ahead with leeway 5', { nbf: NOW_S + 6 }, 5, false],
    ['iat exactly now', { iat: NOW_S }, 0, true],
    ['iat one second ahead', { iat: NOW_S + 1 }, 0, false],
    ['iat 5 s ahead with leeway 5 (exactly at the edge)', { iat: NOW_S + 5 }, 5, true],
    ['iat 6 s ahead with leeway 5', { iat: NOW_S + 6 }, 5, false],
  ] as const) {
    it(`${name}: ${accepted ? 'accepted' : 'refused'}`, async () => {
      const token = await sign({ sub: 'edge', ...claims });
      const jwt = verifier({ leewaySeconds: leeway });
      if (accepted) assert.equal((await jwt.authenticate(token)).principal_id, 'edge');
      else await refused(jwt, token);
    });
  }
});

/** The token with its `index`th dot-separated part rewritten. */
function withPart(token: string, index: number, rewrite: (part: string) => string): string {
  const parts = token.split('.');
  parts[index] = rewrite(parts[index]!);
  return parts.join('.');
}

/** A hand-made token whose signature holds a character matching `wanted` (tried over a few subjects). */
function forgeWith(wanted: RegExp): string {
  for (let i = 0; ; i++) {
    const token = forge({ alg: 'HS256', typ: 'JWT' }, { sub: `user-${i}` });
    if (wanted.test(token.split('.')[2]!)) return token;
  }
}

/**
 * The same bytes spelled otherwise: a 32-byte HS256 signature is 43 characters, the last one
 * carrying 4 bits and 2 unused ones, which a lenient decoder ignores.
 */
function strayBits(part: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(part.at(-1)!);
  return part.slice(0, -1) + alphabet[last ^ 1]!;
}

describe('JwtAuthenticator: attacks are refused (rules 2, 3, 6)', () => {
  const header = { alg: 'HS256', typ: 'JWT' };
  const rows: Array<[string, () => Promise<string> | string, Partial<ConstructorParameters<typeof JwtAuthenticator>[0]>?]> = [
    ['alg none, no signature', () => forge({ alg: 'none', typ: 'JWT' }, { sub: 'mallory' }, 'none')],
    ['alg none with a signature', () => forge({ alg: 'none' }, { sub: 'mallory' })],
    ['an HS512 token to an HS256 verifier', () => sign({ sub: 'a' }, 'HS512')],
    ['an HS256 token to an HS512 verifier', () => sign({ sub: 'a' }, 'HS256'), { algorithm: 'HS512' }],
    ['signed with another secret', () => sign({ sub: 'a' }, 'HS256', 'another-secret-entirely-0123456789')],
    [
      'payload changed under the old signature',
      async () => {
        const [head, , signature] = (await sign({ sub: 'alice', role: 'user' })).split('.');
        return `${head}.${b64url(JSON.stringify({ sub: 'alice', role: 'admin' }))}.${signature}`;
      },
    ],
    ['expired an hour ago', () => sign({ sub: 'a', exp: NOW_S - 3600 })],
    ['nbf in the future', () => sign({ sub: 'a', nbf: NOW_S + 60 })],
    ['iat in the future beyond the leeway', () => sign({ sub: 'a', iat: NOW_S + 60 }), { leewaySeconds: 30 }],
    ['wrong iss', () => sign({ sub: 'a', iss: 'https://evil' }), { issuer: 'https://issuer' }],
    ['no iss when one is required', () => sign({ sub: 'a' }), { issuer: 'https://issuer' }],
    ['wrong aud', () => sign({ sub: 'a', aud: 'others' }), { audience: 'agents' }],
    ['aud list without ours', () => sign({ sub: 'a', aud: ['x', 'y'] }), { audience: 'agents' }],
    ['two segments', async () => (await sign({ sub: 'a' })).split('.').slice(0, 2).join('.')],
    ['four segments', async () => `${await sign({ sub: 'a' })}.extra`],
    ['non-base64url characters in the payload', async () => (await sign({ sub: 'a' })).replace('.', '.*+/')],
    ['a header that is JSON but not an object', () => forge('["HS256"]', { sub: 'a' })],
    ['a header that is not JSON', () => forge('{alg:HS256', { sub: 'a' })],
    ['a payload that is JSON but not an object', () => forge(header, '"alice"')],
    ['a Bearer prefix left on the token', async () => `Bearer ${await sign({ sub: 'a' })}`],
    ['an empty string', () => ''],
    ['whitespace only', () => '   '],
    ['exp that is not a number', () => forge(header, { sub: 'a', exp: 'tomorrow' })],
    ['iat that is not a number', () => forge(header, { sub: 'a', iat: 'now' })],
    // One token, one spelling (RFC 7515: base64url without padding): jose's decoder reads
    // these alike, so without the pre-check each would pass as the signed token.
    ['the signature with = padding appended', async () => `${await sign({ sub: 'a' })}=`],
    ['the signature with == padding appended', async () => `${await sign({ sub: 'a' })}==`],
    ['the header with = padding appended', async () => (await sign({ sub: 'a' })).replace('.', '=.')],
    ['the payload with = padding appended', async () => withPart(await sign({ sub: 'a' }), 1, (part) => `${part}=`)],
    [
      '+ in place of - in the signature',
      () => withPart(forgeWith(/[-_]/), 2, (part) => part.replace('-', '+').replace('_', '/')),
    ],
    [
      'a space inside the signature',
      async () => withPart(await sign({ sub: 'a' }), 2, (part) => `${part.slice(0, 5)} ${part.slice(5)}`),
    ],
    ['a newline at the end of the signature', async () => `${await sign({ sub: 'a' })}\n`],
    ['an empty header part', async () => withPart(await sign({ sub: 'a' }), 0, () => '')],
    ['an empty payload part', async () => withPart(await sign({ sub: 'a' }), 1, () => '')],
    ['an empty signature part', async () => withPart(await sign({ sub: 'a' }), 2, () => '')],
    ['a signature whose last character has stray low bits', async () => withPart(await sign({ sub: 'a' }), 2, strayBits)],
  ];
  for (const [name, token, options] of rows) {
    it(name, async () => {
      await refused(verifier(options), await token());
    });
  }

  it('the hand-made token helper itself signs correctly (so the rows above fail for their own reason)', async () => {
    assert.equal((await verifier().authenticate(forge(header, { sub: 'forged-ok' }))).principal_id, 'forged-ok');
  });
});

describe('JwtAuthenticator: the cache of verified tokens', () => {
  it('a cached token stops counting at its exp: accepted before, refused after', async () => {
    let now = NOW;
    const jwt = verifier({ now: () => now });
    const token = await sign({ sub: 'u', exp: NOW_S + 10 });
    assert.equal((await jwt.authenticate(token)).principal_id, 'u');
    now = new Date((NOW_S + 9) * 1000);
    assert.equal((await jwt.authenticate(token)).principal_id, 'u');
    now = new Date((NOW_S + 11) * 1000);
    await refused(jwt, token);
  });

  it('a refused token is not remembered: once its nbf has come it is accepted', async () => {
    let now = NOW;
    const jwt = verifier({ now: () => now });
    const token = await sign({ sub: 'u', nbf: NOW_S + 60 });
    await refused(jwt, token);
    now = new Date((NOW_S + 61) * 1000);
    assert.equal((await jwt.authenticate(token)).principal_id, 'u');
  });

  it('a clock set back before the verification checks the token again (nbf)', async () => {
    let now = new Date((NOW_S + 120) * 1000);
    const jwt = verifier({ now: () => now });
    const token = await sign({ sub: 'u', nbf: NOW_S + 60 });
    assert.equal((await jwt.authenticate(token)).principal_id, 'u');
    now = NOW;
    await refused(jwt, token);
  });

  it('a claim named __proto__ stays an ordinary claim, in the first context and in cached ones', async () => {
    const jwt = verifier();
    const token = forge({ alg: 'HS256', typ: 'JWT' }, '{"sub":"u","__proto__":{"admin":true},"roles":["reader"]}');
    for (let call = 0; call < 2; call++) {
      const claims = (await jwt.authenticate(token)).metadata!.claims as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(claims), Object.prototype, `call ${call + 1}`);
      assert.ok(Object.hasOwn(claims, '__proto__'), `call ${call + 1}`);
      assert.equal(claims.admin, undefined, `call ${call + 1}`);
      assert.deepEqual(Object.keys(claims).sort(), ['__proto__', 'roles']);
    }
  });

  it('each context is its own copy: editing one leaves the next one as the token says', async () => {
    const jwt = verifier();
    const token = await sign({ sub: 'u', team: { name: 'blue' }, metadata: { tier: 'gold' } });
    for (let call = 0; call < 3; call++) {
      const context = await jwt.authenticate(token);
      assert.deepEqual(context.metadata, { tier: 'gold', claims: { team: { name: 'blue' } } }, `call ${call + 1}`);
      (context.metadata!.claims as { team: { name: string } }).team.name = 'red';
      context.metadata!.tier = 'lead';
    }
  });

  it('a verified token is answered at once (no Promise) until its exp; past it, verified again and refused', async () => {
    let now = NOW;
    const jwt = verifier({ now: () => now });
    const token = await sign({ sub: 'u', exp: NOW_S + 10 });
    const first = jwt.authenticateNow(token);
    assert.ok(first instanceof Promise, 'an unknown token needs the HMAC');
    assert.equal((await first).principal_id, 'u');
    const again = jwt.authenticateNow(token);
    assert.ok(!(again instanceof Promise), 'a known token comes from the cache');
    assert.deepEqual(
      { ...again, issued_at: undefined },
      { principal_id: 'u', token, expires_at: new Date((NOW_S + 10) * 1000).toISOString(), issued_at: undefined, metadata: {} },
    );
    now = new Date((NOW_S + 10) * 1000);
    const expired = jwt.authenticateNow(token);
    assert.ok(expired instanceof Promise, 'at exp the entry no longer counts');
    await assert.rejects(expired, (error: unknown) => error instanceof AuthenticationError && error.code === 'invalid_token');
  });

  it('a cached token with nbf is verified again when the clock goes back before its verification', async () => {
    let now = new Date((NOW_S + 120) * 1000);
    const jwt = verifier({ now: () => now });
    const token = await sign({ sub: 'u', nbf: NOW_S + 60 });
    await jwt.authenticateNow(token);
    assert.ok(!(jwt.authenticateNow(token) instanceof Promise));
    now = NOW;
    await assert.rejects(Promise.resolve(jwt.authenticateNow(token)), /nbf|not active/i);
  });

  it('the cache is bounded: past cacheSize the oldest token is verified again', async () => {
    const jwt = verifier({ cacheSize: 2 });
    const tokens = await Promise.all(['a', 'b', 'c'].map((sub) => sign({ sub })));
    for (const token of tokens) await jwt.authenticateNow(token);
    const evicted = jwt.authenticateNow(tokens[0]!);
    assert.ok(evicted instanceof Promise, 'the oldest was evicted');
    await evicted;
    assert.ok(jwt.authenticateNow(tokens[0]!) instanceof Promise === false);
    assert.ok(jwt.authenticateNow(tokens[2]!) instanceof Promise === false);
    assert.ok(jwt.authenticateNow(tokens[1]!) instanceof Promise, 'b was the oldest when a came back');
  });

  it('the cache belongs to its authenticator: a token verified by one is refused by another with a new secret', async () => {
    const token = await sign({ sub: 'u' });
    const before = verifier();
    assert.equal((await before.authenticate(token)).principal_id, 'u');
    assert.ok(!(before.authenticateNow(token) instanceof Promise));
    await refused(verifier({ secret: 'the-rotated-secret-0123456789abcdef' }), token);
  });

  it('the same new token verified by concurrent requests takes one entry, pushing no other token out', async () => {
    const jwt = verifier({ cacheSize: 2 });
    const [a, b] = await Promise.all(['a', 'b'].map((sub) => sign({ sub })));
    await jwt.authenticateNow(a!);
    await Promise.all([jwt.authenticateNow(b!), jwt.authenticateNow(b!)]);
    assert.ok(!(jwt.authenticateNow(a!) instanceof Promise));
    assert.ok(!(jwt.authenticateNow(b!) instanceof Promise));
  });

  it('cacheSize 0: every request is verified (a Promise every time)', async () => {
    const jwt = verifier({ cacheSize: 0 });
    const token = await sign({ sub: 'u' });
    await jwt.authenticateNow(token);
    assert.ok(jwt.authenticateNow(token) instanceof Promise);
  });

  it('refuses a negative or fractional cacheSize; 0 turns the cache off and the exp check still holds', async () => {
    for (const cacheSize of [-1, 1.5]) {
      assert.throws(
        () => verifier({ cacheSize }),
        (error: unknown) => error instanceof ConfigError && error.field === 'cacheSize',
      );
    }
    let now = NOW;
    const jwt = verifier({ now: () => now, cacheSize: 0 });
    const token = await sign({ sub: 'u', exp: NOW_S + 10 });
    assert.equal((await jwt.authenticate(token)).principal_id, 'u');
    now = new Date((NOW_S + 11) * 1000);
    await refused(jwt, token);
  });
});
