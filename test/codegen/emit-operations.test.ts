// The operation emitter: a stream's `fallback` becomes the route of the operation it names,
// and a fallback that cannot stand in for the stream stops the generator; a manifest's
// `statusTexts` become its `<SERVICE>_STATUS` constant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emitOperationFiles } from '../../codegen/emit-operations.js';
import type { OperationEntry, OperationsManifest } from '../../codegen/operations-manifest.js';
import { agentOperations } from '../../generated/operations/agent.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';
import { readFileSync } from 'node:fs';

const base = {
  summary: 'x',
  query: null,
  idempotent: false,
  public: false,
  controlPlane: false,
  availability: 'always',
  idempotencyKeyFrom: [],
} as const;
const submit: OperationEntry = {
  ...base,
  name: 'submit',
  specName: 'submit',
  method: 'POST',
  path: '/work/',
  request: null,
  response: null,
  responseContentType: 'application/json',
  streaming: false,
};
const watch: OperationEntry = {
  ...base,
  name: 'watch',
  specName: 'watch',
  method: 'POST',
  path: '/work/stream',
  request: null,
  response: null,
  responseContentType: 'text/event-stream',
  streaming: true,
  fallback: 'submit',
};
const manifest = (...operations: OperationEntry[]): OperationsManifest => ({ service: 'registry', description: 'x', operations });

test('the generated agent stream names the route of task submission as its fallback', () => {
  const { sendTask, streamTask } = agentOperations;
  assert.deepEqual(streamTask.fallback, { name: sendTask.name, method: sendTask.method, path: sendTask.path });
  assert.equal('fallback' in sendTask, false);
});

test('a fallback is emitted as the route of the operation it names', () => {
  const { operations } = emitOperationFiles(manifest(submit, watch), []);
  assert.match(operations, /"fallback": \{\s*"name": "submit",\s*"method": "POST",\s*"path": "\/work\/"\s*\}/);
});

test('a fallback that cannot stand in for the stream stops the generator', () => {
  const cases: Array<[string, OperationEntry[]]> = [
    ['unknown operation', [submit, { ...watch, fallback: 'nothing' }]],
    ['on a unary operation', [{ ...submit, fallback: 'submit' }]],
    ['to a stream', [submit, { ...watch, name: 'other', path: '/other' }, { ...watch, fallback: 'other' }]],
    ['to an HTML page', [{ ...submit, responseContentType: 'text/html' }, watch]],
    ['taking another request', [{ ...submit, request: 'task' }, watch]],
  ];
  for (const [label, operations] of cases) {
    assert.throws(
      () => emitOperationFiles(manifest(...operations), [{ name: 'task', typeName: 'Task' } as never]),
      /fallback/,
      label,
    );
  }
});

test('the registry status texts are generated from its manifest, and only a manifest with texts gets the constant', () => {
  const registry = JSON.parse(readFileSync(new URL('../../schemas/operations/registry.json', import.meta.url), 'utf8'));
  assert.deepEqual({ ...REGISTRY_STATUS }, registry.statusTexts);
  const withTexts = emitOperationFiles({ ...manifest(submit), statusTexts: { done: 'work done' } }, []);
  assert.match(withTexts.operations, /export const REGISTRY_STATUS = \{\n {2}done: "work done",\n\} as const;/);
  assert.doesNotMatch(emitOperationFiles(manifest(submit), []).operations, /_STATUS/);
});
