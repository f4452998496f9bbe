// The generated pieces agree with their sources: the standalone validators give the same
// verdict as ajv compiling the same schemas now, the generated types name every schema, and
// the generator writes the same bytes twice.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { schemaNames, validate, isSchemaName } from '../../generated/validators/index.js';
import { buildTree } from '../../codegen/main.js';
import { createAjv } from '../../codegen/emit-validators.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NATIVE = `${ROOT}schemas/native/`;
const A2A = `${ROOT}generated/schemas/a2a/`;
const CONFIG = `${ROOT}generated/schemas/native/transport-config.schema.json`;

type Schema = { $id: string; title: string; examples?: unknown[] };
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Schema;
const native = readdirSync(NATIVE)
  .filter((f) => f.endsWith('.schema.json'))
  .map((f) => [f.replace('.schema.json', ''), read(NATIVE + f)] as const);
const a2a = readdirSync(A2A).map((f) => [`a2a:${f.replace('.schema.json', '')}`, read(A2A + f)] as const);
const all = [...native, ['transport-config', read(CONFIG)] as const, ...a2a];

const runtimeAjv = createAjv();
for (const [, schema] of all) runtimeAjv.addSchema(schema);

/** Values of many shapes, valid and not, to compare verdicts on. */
function probes(schema: Schema): unknown[] {
  const base: unknown[] = [null, 0, 'text', true, [], {}, { id: 'x' }, { id: 1 }, { type: 'text', content: 5 }];
  for (const example of schema.examples ?? []) {
    base.push(example);
    if (example && typeof example === 'object' && !Array.isArray(example)) {
      for (const key of Object.keys(example)) {
        const { [key]: _dropped, ...without } = example as Record<string, unknown>;
        base.push(without, { ...(example as object), [key]: 12345 }, { ...(example as object), [key]: null });
      }
    }
  }
  return base;
}

test('every schema file has a generated validator, and only those', () => {
  assert.deepEqual([...schemaNames].sort(), all.map(([name]) => name).sort());
  for (const [name] of all) assert.ok(isSchemaName(name), name);
});

for (const [name, schema] of all) {
  test(`${name}: the generated validator and a run-time compiled one agree`, () => {
    const compiled = runtimeAjv.getSchema(schema.$id)!;
    for (const value of probes(schema)) {
      assert.equal(validate(name as never, value).valid, compiled(value), `${name} on ${JSON.stringify(value)}`);
    }
  });
}

test('every native schema has a generated type named by its title', () => {
  const types = readFileSync(`${ROOT}generated/types/index.ts`, 'utf8');
  for (const [name, schema] of native) {
    assert.match(types, new RegExp(`from './${name}.js'`));
    assert.match(
      readFileSync(`${ROOT}generated/types/${name}.ts`, 'utf8'),
      new RegExp(`export (interface|type) ${schema.title}\\b`),
    );
  }
});

test('the generator is deterministic and matches generated/ on disk', async () => {
  const first = await buildTree(ROOT);
  const second = await buildTree(ROOT);
  assert.deepEqual([...first.files.keys()].sort(), [...second.files.keys()].sort());
  for (const [path, content] of first.files) assert.equal(second.files.get(path), content, path);
  assert.deepEqual(await first.diff(ROOT, ['generated']), []);
});
