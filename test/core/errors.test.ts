// src/core/errors.ts: where the spec's Python error kinds become TypeScript classes.
// ValueError -> ConfigError / InvalidArgumentError (RangeError), ImportError ->
// MissingDependencyError, RuntimeError -> StateError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigError,
  describe,
  importOptional,
  InvalidArgumentError,
  MissingDependencyError,
  StateError,
} from '../../src/core/errors.js';

test('ConfigError names the field, the value and the rule', () => {
  const error = new ConfigError('limits.maxRequestBytes', 0, 'must be a positive integer');
  assert.ok(error instanceof RangeError);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'ConfigError');
  assert.equal(error.code, 'invalid_config');
  assert.equal(error.field, 'limits.maxRequestBytes');
  assert.equal(error.value, 0);
  assert.equal(error.rule, 'must be a positive integer');
  assert.equal(error.message, 'limits.maxRequestBytes: must be a positive integer (got 0)');
});

test('InvalidArgumentError is a RangeError with a code (default invalid_argument)', () => {
  const plain = new InvalidArgumentError('bad');
  assert.ok(plain instanceof RangeError);
  assert.equal(plain.code, 'invalid_argument');
  assert.equal(plain.name, 'InvalidArgumentError');
  assert.equal(new InvalidArgumentError('bad', 'unknown_transport').code, 'unknown_transport');
});

test('MissingDependencyError names the package, the feature and how to install it', () => {
  const cause = new Error('not found');
  const error = new MissingDependencyError('ws', 'the websocket transport', { cause });
  assert.equal(error.name, 'MissingDependencyError');
  assert.equal(error.code, 'missing_dependency');
  assert.equal(error.packageName, 'ws');
  assert.equal(error.feature, 'the websocket transport');
  assert.equal(error.cause, cause);
  assert.match(error.message, /the websocket transport/);
  assert.match(error.message, /"ws"/);
  assert.match(error.message, /npm install ws/);
  assert.ok(!(error instanceof RangeError));
});

test('StateError is an Error with a code (default invalid_state)', () => {
  const error = new StateError('not running');
  assert.equal(error.name, 'StateError');
  assert.equal(error.code, 'invalid_state');
  assert.equal(new StateError('x', 'busy').code, 'busy');
});

const described: Array<[string, unknown, string]> = [
  ['string', 'abc', '"abc"'],
  ['number', 1.5, '1.5'],
  ['NaN', Number.NaN, 'NaN'],
  ['boolean', false, 'false'],
  ['null', null, 'null'],
  ['undefined', undefined, 'undefined'],
  ['array', ['GET', ''], '["GET",""]'],
  ['object', { a: 1 }, '{"a":1}'],
];
for (const [label, value, text] of described) {
  test(`describe(${label}) -> ${text}`, () => assert.equal(describe(value), text));
}

test('describe survives values JSON cannot encode', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  assert.equal(describe(circular), '[object Object]');
  assert.equal(describe(10n), '[object BigInt]');
});

test('importOptional: a package that is not installed is a MissingDependencyError', async () => {
  await assert.rejects(importOptional('definitely-not-installed-pkg-xyz', 'x'), (error: unknown) => {
    assert.ok(error instanceof MissingDependencyError);
    assert.equal(error.packageName, 'definitely-not-installed-pkg-xyz');
    assert.equal(error.feature, 'x');
    return true;
  });
});

// The install command must name the package, not the subpath parley imports from it.
const subpaths: Array<[string, string]> = [
  ['not-installed-pkg-xyz/lite', 'not-installed-pkg-xyz'],
  ['@not-installed-scope/pkg/sub/path', '@not-installed-scope/pkg'],
  ['@not-installed-scope/pkg', '@not-installed-scope/pkg'],
];
for (const [specifier, packageName] of subpaths) {
  test(`importOptional: a missing ${specifier} names ${packageName} and its npm install`, async () => {
    await assert.rejects(importOptional(specifier, 'x'), (error: unknown) => {
      assert.ok(error instanceof MissingDependencyError);
      assert.equal(error.packageName, packageName);
      assert.match(error.message, new RegExp(`npm install ${packageName}$`));
      return true;
    });
  });
}

test('importOptional: an installed package loads', async () => {
  const ajv = await importOptional<{ default: unknown }>('ajv', 'validation');
  assert.ok(ajv.default);
});
