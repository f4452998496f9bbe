// cloneJson and setOwn: the copy shares nothing mutable with its source, and a member named
// `__proto__` (as JSON.parse makes one) stays a member rather than becoming the prototype.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cloneJson, setOwn } from '../../src/core/objects.js';

test('cloneJson: an equal value that shares no object or array with the source', () => {
  const source = JSON.parse('{"a":{"b":[1,{"c":"x"}],"n":null,"t":true},"list":[[2],[3]],"s":"text","z":0}');
  const copy = cloneJson(source);
  assert.deepEqual(copy, source);
  copy.a.b[1].c = 'y';
  copy.a.b.push(9);
  copy.list[0].push(4);
  copy.a.added = 1;
  assert.deepEqual(source, JSON.parse('{"a":{"b":[1,{"c":"x"}],"n":null,"t":true},"list":[[2],[3]],"s":"text","z":0}'));
  for (const scalar of ['s', 1.5, false, null]) assert.equal(cloneJson(scalar), scalar);
});

test('cloneJson: a member named __proto__ is copied as a member, and the copy keeps the plain prototype', () => {
  const source = JSON.parse('{"__proto__":{"admin":true},"inner":{"__proto__":[1]}}');
  const copy = cloneJson(source);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(copy.admin, undefined);
  assert.deepEqual(Object.keys(copy), ['__proto__', 'inner']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { admin: true });
  assert.equal(Object.getPrototypeOf(copy.inner), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy.inner, '__proto__')?.value, [1]);
});

test('setOwn: an ordinary name is assigned; __proto__ becomes an own enumerable member', () => {
  const target: Record<string, unknown> = {};
  setOwn(target, 'role', 'reader');
  setOwn(target, '__proto__', { admin: true });
  assert.equal(target.role, 'reader');
  assert.equal(Object.getPrototypeOf(target), Object.prototype);
  assert.equal(target.admin, undefined);
  assert.deepEqual(Object.keys(target), ['role', '__proto__']);
});
