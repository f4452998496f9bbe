// Parts across the A2A boundary (spec: "An unknown part type crossing the A2A boundary becomes
// structured data tagged svcPartType"): the tag's name is a wire fact other A2A peers see, so it
// is pinned as written, and a tagged part must come back as the native part it left as, with the
// tag gone from its metadata and the part's own metadata kept.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fromJson, toJson } from '@bufbuild/protobuf';
import { PartSchema } from '../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { Part as NativePart } from '../../generated/types/index.js';
import { partFromA2a, partToA2a } from '../../src/a2a/model/parts.js';

const wire = (part: NativePart) => toJson(PartSchema, partToA2a(part));
const back = (json: unknown) => partFromA2a(fromJson(PartSchema, json as never), '/message/parts/0');

describe('parts: the svcPartType tag', () => {
  test('a native type A2A lacks goes out as data tagged svcPartType in the metadata', () => {
    const call = { type: 'tool_call', content: { name: 'lookup', arguments: { q: 'x' } } };
    assert.deepEqual(wire(call), { data: { name: 'lookup', arguments: { q: 'x' } }, metadata: { svcPartType: 'tool_call' } });
  });

  test('a data part tagged svcPartType from a peer is the native part of that type, without the tag', () => {
    const native = back({ data: { step: 3 }, metadata: { svcPartType: 'flow_state', origin: 'peer' } });
    assert.deepEqual(native, { type: 'flow_state', content: { step: 3 }, metadata: { origin: 'peer' } });
  });

  const roundTrips: [string, NativePart][] = [
    ['tool_call', { type: 'tool_call', content: { name: 'lookup', arguments: {} } }],
    ['flow_state with its own metadata', { type: 'flow_state', content: { step: 1 }, metadata: { trace: 'a' } } as NativePart],
    ["an application's own type with a scalar content", { type: 'x-score', content: 42 }],
    ['a file part with a content shape A2A has no twin for', { type: 'file', content: { path: '/tmp/x' } }],
    ['plain data stays untagged', { type: 'data', content: { a: [1, 2] } }],
    ['text', { type: 'text', content: 'hello' }],
  ];
  for (const [name, part] of roundTrips) {
    test(`round trip: ${name}`, () => {
      assert.deepEqual(back(wire(part)), part);
    });
  }
});
