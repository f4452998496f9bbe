// The nesting check every request body passes before anything walks it recursively.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../../src/core/json/depth.js';

/** `depth` levels of alternating arrays and objects around a string. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 ? { key: value } : [value];
  return value;
}

describe('jsonValueTooDeep', () => {
  it('counts arrays and objects, not scalars', () => {
    for (const scalar of [null, 1, 'text', true]) assert.equal(jsonValueTooDeep(scalar, 0), false);
    assert.equal(jsonValueTooDeep({}, 1), false);
    assert.equal(jsonValueTooDeep({}, 0), true);
    assert.equal(jsonValueTooDeep({ a: [] }, 1), true);
    assert.equal(jsonValueTooDeep({ a: [], b: 'x' }, 2), false);
  });

  it(`allows ${MAX_JSON_DEPTH} levels by default and refuses one more`, () => {
    assert.equal(jsonValueTooDeep(nested(MAX_JSON_DEPTH)), false);
    assert.equal(jsonValueTooDeep(nested(MAX_JSON_DEPTH + 1)), true);
  });

  it('finds the deep branch among wide shallow ones, whichever comes first', () => {
    const wide = Array.from({ length: 1000 }, (_, i) => ({ i, tags: ['a'] }));
    assert.equal(jsonValueTooDeep({ wide, deep: nested(40) }), true);
    assert.equal(jsonValueTooDeep({ deep: nested(40), wide }), true);
    assert.equal(jsonValueTooDeep({ wide, shallow: nested(20) }), false);
  });

  it('measures values far deeper than the call stack allows without overflowing it', () => {
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    assert.equal(jsonValueTooDeep(deep), true);
    assert.equal(jsonValueTooDeep(deep, 300_000), false);
  });
});
