// Structural rules every native schema file follows, plus "every example validates".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { NATIVE_DIR, NATIVE_ID_BASE, loadNativeSchemas, newAjv, validator } from '../support/schema-helpers.js';

const schemas = loadNativeSchemas();

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls `visit` on every subschema reachable through the usual applicator keywords. */
function walk(schema: unknown, path: string, visit: (node: Json, path: string) => void): void {
  if (!isObject(schema)) return;
  visit(schema, path);
  for (const key of ['properties', '$defs']) {
    const map = schema[key];
    if (isObject(map)) for (const [name, sub] of Object.entries(map)) walk(sub, `${path}/${key}/${name}`, visit);
  }
  for (const key of ['items', 'additionalProperties', 'if', 'then', 'else', 'not']) {
    walk(schema[key], `${path}/${key}`, visit);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, `${path}/${key}/${i}`, visit));
  }
}

test('the expected set of wire shapes exists', () => {
  const expected = [
    'agent-capabilities',
    'agent-card',
    'agent-card-list',
    'agent-interface',
    'agent-url-request',
    'artifact',
    'cancel-request',
    'chat-request',
    'chat-response',
    'compact-history-request',
    'compact-history-result',
    'discover-query',
    'error-body',
    'error-code',
    'flow-state',
    'health',
    'message',
    'message-role',
    'part',
    'registry-entry',
    'registry-status',
    'request-envelope',
    'response-envelope',
    'security-context',
    'security-scheme',
    'sse-frame',
    'state-request',
    'state-result',
    'state-transition',
    'stream-event',
    'stream-event-type',
    'task',
    'task-state',
    'tool-call',
    'tool-result',
    'transport-capabilities',
    'transport-metrics',
    'transport-name',
    'wire-error',
  ];
  for (const name of expected) assert.ok(schemas.has(name), `missing schema ${name}`);
});

test('every schema compiles on its own set in strict mode', () => {
  const ajv = newAjv();
  for (const schema of schemas.values()) ajv.addSchema(schema);
  for (const [name, schema] of schemas) {
    assert.doesNotThrow(() => ajv.getSchema(schema.$id), `schema ${name} does not compile`);
  }
});

for (const [name, schema] of schemas) {
  test(`${name}: header fields`, () => {
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema.$id, `${NATIVE_ID_BASE}${name}.schema.json`);
    assert.match(name, /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'file name is kebab-case');
    assert.match(schema.title, /^[A-Z][A-Za-z0-9]*$/, 'title is a PascalCase identifier');
    assert.ok(schema.description.length > 20, 'has a real description');
    assert.ok(Array.isArray(schema.examples) && schema.examples.length > 0, 'has examples');
  });

  test(`${name}: every example validates`, () => {
    const validate = validator(name);
    schema.examples.forEach((example, i) => {
      assert.ok(validate(example), `example ${i}: ${JSON.stringify(validate.errors)}`);
    });
  });

  test(`${name}: every declared property has a description`, () => {
    walk(schema, '#', (node, path) => {
      // Properties inside if/then/else only narrow an already documented property.
      if (/\/(if|then|else)(\/|$)/.test(path)) return;
      const props = node.properties;
      if (!isObject(props)) return;
      for (const [prop, sub] of Object.entries(props)) {
        assert.ok(
          isObject(sub) && typeof sub.description === 'string' && sub.description.length > 0,
          `${path}/properties/${prop} lacks a description`,
        );
      }
    });
  });

  test(`${name}: relative references point at existing files`, () => {
    walk(schema, '#', (node) => {
      const ref = node.$ref;
      if (typeof ref !== 'string' || ref.startsWith('#')) return;
      assert.doesNotMatch(ref, /^[a-z]+:/, `${ref} must be relative`);
      assert.ok(existsSync(NATIVE_DIR + ref), `${ref} does not exist`);
    });
  });
}

test('titles (including $defs titles) are unique', () => {
  const seen = new Map<string, string>();
  for (const [name, schema] of schemas) {
    walk(schema, name, (node, path) => {
      const title = node.title;
      if (typeof title !== 'string') return;
      assert.match(title, /^[A-Z][A-Za-z0-9]*$/, `${path} title`);
      assert.ok(!seen.has(title), `title ${title} used by ${seen.get(title)} and ${path}`);
      seen.set(title, path);
    });
  }
});
