// The destination policy's table: each refused address class in IPv4 and IPv6 (and IPv4
// carried in IPv6: mapped, NAT64, 6to4), public addresses allowed, the allow options (every
// address, a CIDR range, an exact host name), the URL rules (https only unless http is
// allowed, no credentials, literal addresses judged at once) and the allow list's own checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.js';
import { classifyAddress, DestinationPolicy } from '../../../src/a2a/push/destination-policy.js';

const CLASSES: readonly [string, string | null][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['100.64.0.1', 'shared'],
  ['169.254.169.254', 'link-local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fdff::1', 'unique-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:10.0.0.1', 'private'],
  ['64:ff9b::a00:1', 'private'],
  ['2002:a9fe:a9fe::1', 'link-local'],
  ['2002:7f00:1::', 'loopback'],
  ['::127.0.0.1', 'reserved'],
  // Public: allowed.
  ['8.8.8.8', null],
  ['172.32.0.1', null],
  ['172.15.255.255', null],
  ['100.128.0.1', null],
  ['169.255.0.1', null],
  ['2606:4700:4700::1111', null],
  ['::ffff:8.8.8.8', null],
  ['64:ff9b::808:808', null],
  ['2002:808:808::1', null],
];

for (const [address, expected] of CLASSES) {
  test(`${address} is ${expected ?? 'public'}`, () => {
    assert.equal(classifyAddress(address), expected);
  });
}

test('allowPrivate allows every address', () => {
  const policy = new DestinationPolicy({ allowPrivate: true });
  for (const [address] of CLASSES) assert.equal(policy.refusal(address, 'any.host'), null, address);
});

test('an allowed CIDR range allows the addresses inside it and no others', () => {
  const policy = new DestinationPolicy({ allow: ['10.1.0.0/16', 'fd00::/8', '127.0.0.1'] });
  assert.equal(policy.refusal('10.1.2.3', 'h'), null);
  assert.equal(policy.refusal('10.2.0.1', 'h'), 'private');
  assert.equal(policy.refusal('fd12::1', 'h'), null);
  assert.equal(policy.refusal('fc00::1', 'h'), 'unique-local');
  assert.equal(policy.refusal('127.0.0.1', 'h'), null);
  assert.equal(policy.refusal('127.0.0.2', 'h'), 'loopback');
});

test('an allowed host name allows that name at any address, case-insensitively, and no other name', () => {
  const policy = new DestinationPolicy({ allow: ['Hooks.Internal'] });
  assert.equal(policy.refusal('10.0.0.1', 'hooks.internal'), null);
  assert.equal(policy.refusal('10.0.0.1', 'HOOKS.internal'), null);
  assert.equal(policy.refusal('10.0.0.1', 'evil.hooks.internal'), 'private');
});

test('the allow list refuses what is neither a host name nor an address or range', () => {
  for (const bad of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/x', 'host/8', 'bad host', '', 'http://x']) {
    assert.throws(() => new DestinationPolicy({ allow: [bad] }), ConfigError, bad);
  }
});

const URLS: readonly [string, { allowHttp?: boolean; allowPrivate?: boolean }, RegExp | null][] = [
  ['https://hooks.example/a', {}, null],
  ['http://hooks.example/a', {}, /must be an https URL/],
  ['http://hooks.example/a', { allowHttp: true }, null],
  ['ftp://hooks.example/a', { allowHttp: true }, /must be an http or https URL/],
  ['https://user:pass@hooks.example/', {}, /must not carry credentials/],
  ['https://127.0.0.1/', {}, /loopback address/],
  ['https://[::1]/', {}, /loopback address/],
  ['https://[::ffff:169.254.169.254]/', {}, /link-local address/],
  ['https://169.254.169.254/latest/meta-data', {}, /link-local address/],
  ['https://127.0.0.1/', { allowPrivate: true }, null],
  ['https://8.8.8.8/', {}, null],
  // A name is judged when a call connects, not here.
  ['https://localhost/', {}, null],
];

for (const [url, options, expected] of URLS) {
  test(`checkUrl ${url} ${JSON.stringify(options)}: ${expected ?? 'accepted'}`, () => {
    const problem = new DestinationPolicy(options).checkUrl(new URL(url));
    if (expected === null) assert.equal(problem, null);
    else assert.match(problem ?? '', expected);
  });
}
