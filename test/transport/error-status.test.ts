// ERROR_STATUS (generated from error-code.schema.json's x-http-status) against the user docs and
// the spec, one row each; and the codegen check that the table and the enum name the same codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_STATUS } from '../../generated/errors/error-status.js';
import { emitErrorStatusModule } from '../../codegen/emit-error-status.js';
import { catalogEntry, type JsonSchema } from '../../codegen/schema-catalog.js';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const schemaText = readFileSync(new URL('../../schemas/native/error-code.schema.json', import.meta.url), 'utf8');

// The rows of the `| status | code | when |` table in docs/errors.md.
const docRows = [...docs.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => [match[2]!, Number(match[1])] as const);

test('docs/errors.md lists every code exactly once', () => {
  assert.deepEqual(docRows.map(([code]) => code).sort(), Object.keys(ERROR_STATUS).sort());
});

for (const [code, status] of docRows) {
  test(`docs/errors.md: ${code} is ${status}, as ERROR_STATUS says`, () => {
    assert.equal(ERROR_STATUS[code as keyof typeof ERROR_STATUS], status);
  });
}

// The statuses the spec itself names ("Errors"): a 401 for missing or rejected credentials, a
// remote error with status 404 for an unknown runtime endpoint.
const specRows: Array<[keyof typeof ERROR_STATUS, number]> = [
  ['unauthenticated', 401],
  ['not_found', 404],
];
for (const [code, status] of specRows) {
  test(`spec: ${code} is ${status}`, () => {
    assert.equal(ERROR_STATUS[code], status);
  });
}

test('ERROR_STATUS is frozen', () => {
  assert.ok(Object.isFrozen(ERROR_STATUS));
});

function variant(change: (schema: JsonSchema) => void): string {
  const schema = JSON.parse(schemaText) as JsonSchema;
  change(schema);
  return emitErrorStatusModule([catalogEntry(schema, 'error-code.schema.json')]);
}

test('codegen: the emitted table holds every enum code with its x-http-status', () => {
  const module = variant(() => {});
  for (const [code, status] of Object.entries(ERROR_STATUS)) assert.ok(module.includes(`  ${code}: ${status},\n`), code);
});

const broken: Array<[string, (schema: JsonSchema) => void, RegExp]> = [
  ['a code without a status', (s) => delete (s['x-http-status'] as Record<string, number>).timeout, /missing timeout/],
  [
    'a status for a code not in the enum',
    (s) => ((s['x-http-status'] as Record<string, number>).teapot = 418),
    /not in the enum: teapot/,
  ],
  ['a status that is not an HTTP status', (s) => ((s['x-http-status'] as Record<string, number>).conflict = 4090), /conflict/],
  ['a status that is not an integer', (s) => ((s['x-http-status'] as Record<string, unknown>).conflict = '409'), /conflict/],
  ['no table at all', (s) => delete s['x-http-status'], /needs an enum and an x-http-status table/],
];
for (const [label, change, message] of broken) {
  test(`codegen refuses error-code.schema.json with ${label}`, () => {
    assert.throws(() => variant(change), message);
  });
}
