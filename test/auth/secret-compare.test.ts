// SecretSet: a presented value matches a configured secret only when every byte and the length
// agree; anything near it (a prefix, an extension, zero padding, a longer value whose start
// fits the comparison width) is refused.
import assert from 'node:assert/strict';
import test from 'node:test';
import { SecretSet } from '../../src/auth/secret-compare.js';

const KEY = 'pk_live_0123456789abcdef';
const WIDE = 'w'.repeat(64);
const set = new SecretSet<string>([
  [KEY, 'live'],
  ['sk_rotated_ffffffffffff', 'rotated'],
  ['clé-ünïcode-✓', 'unicode'],
  [WIDE, 'wide'],
]);

test('each configured secret finds its own value', () => {
  assert.equal(set.size, 4);
  assert.equal(set.find(KEY), 'live');
  assert.equal(set.find('sk_rotated_ffffffffffff'), 'rotated');
  assert.equal(set.find('clé-ünïcode-✓'), 'unicode');
  assert.equal(set.find(WIDE), 'wide');
});

const refused: Array<[string, string]> = [
  ['empty', ''],
  ['a prefix', KEY.slice(0, -1)],
  ['an extension', `${KEY}0`],
  ['the key with a zero byte after it, as padding would read', `${KEY}\u0000`],
  ['one byte changed at the end', `${KEY.slice(0, -1)}0`],
  ['one byte changed at the start', `q${KEY.slice(1)}`],
  ['another case', KEY.toUpperCase()],
  ['a value longer than the comparison width that starts with a 64-byte secret', `${WIDE}w`],
  ['the multi-byte secret cut inside a character', 'clé-ünïcode-'],
  // 63 bytes of the wide secret and a 2-byte character: 65 bytes, of which 63 fit the width.
  ['a value whose last character does not fit the width', `${'w'.repeat(63)}é`],
  ['a long value', 'x'.repeat(10_000)],
];
for (const [name, presented] of refused) {
  test(`refused: ${name}`, () => {
    assert.equal(set.find(presented), undefined);
  });
}

test('a secret longer than the width is compared in full, and a value one byte short is refused', () => {
  const long = `${'k'.repeat(100)}-end`;
  const wide = new SecretSet([[long, true]]);
  assert.equal(wide.find(long), true);
  assert.equal(wide.find(long.slice(0, -1)), undefined);
  assert.equal(wide.find(`${long.slice(0, -1)}E`), undefined);
});

test('a value whose last character does not fit the width is not taken for the secret it starts with', () => {
  // 63 bytes compared over 64: the value's 2-byte last character is left out when written.
  const secret = 's'.repeat(63);
  const narrow = new SecretSet([[secret, true]]);
  assert.equal(narrow.find(secret), true);
  assert.equal(narrow.find(`${secret}é`), undefined);
  assert.equal(narrow.find(`${secret}😀`), undefined);
  assert.equal(narrow.find(`${'s'.repeat(60)}😀`), undefined);
});

test('calls one after another do not see each other: the scratch space is rewritten each time', () => {
  assert.equal(set.find('x'.repeat(60)), undefined);
  assert.equal(set.find(KEY), 'live');
  assert.equal(set.find(''), undefined);
});

test('what a longer value left behind never completes a shorter one, written either way', () => {
  const short = new SecretSet([
    ['abc', 'ascii'],
    ['ab', 'two'],
  ]);
  // Each pair: a longer value first, then a prefix of it that is not a secret, then a secret.
  for (const [longer, prefix] of [
    ['abcdef', 'abcd'],
    ['abcé', 'a'],
    ['abcx', 'a'],
    ['abcdefé', 'abcdé'],
    ['a'.repeat(200), 'aa'],
  ] as const) {
    assert.equal(short.find(longer), undefined, longer);
    assert.equal(short.find(prefix), undefined, `${prefix} after ${longer}`);
    assert.equal(short.find('abc'), 'ascii');
    assert.equal(short.find(longer), undefined, longer);
    assert.equal(short.find('ab'), 'two', `ab after ${longer}`);
  }
});
