// Every native schema, through `parley validate`: its documented examples pass (exit 0), and
// a payload that breaks it fails (exit 1) with a line naming the file and the pointer.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { schemaNames } from '../../generated/validators/index.js';
import { lines, runCli, scratchDir } from './run-cli.js';

type Schema = {
  type?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, { type?: unknown }>;
  examples?: unknown[];
};

const SCHEMA_DIRS = ['../../schemas/native/', '../../generated/schemas/native/'].map((dir) =>
  fileURLToPath(new URL(dir, import.meta.url)),
);

function loadNativeSchemas(): Map<string, Schema> {
  const schemas = new Map<string, Schema>();
  for (const dir of SCHEMA_DIRS) {
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.schema.json')) {
        schemas.set(file.slice(0, -'.schema.json'.length), JSON.parse(readFileSync(join(dir, file), 'utf8')) as Schema);
      }
    }
  }
  return schemas;
}

const WRONG_VALUE: Record<string, unknown> = {
  string: 12345,
  integer: 'not a number',
  number: 'not a number',
  boolean: 'yes',
  array: 'not a list',
  object: 'not an object',
};

/**
 * A payload the schema must reject, and the pointer of the error it must cause:
 * `[42]` for list schemas, an unknown value for enumerations, `{}` when a property is
 * required, a wrongly typed property otherwise, and a number where an object is expected
 * as the last resort.
 */
function invalidPayload(schema: Schema): { value: unknown; pointer: string } {
  if (schema.type === 'array') return { value: [42], pointer: '/0' };
  if (schema.type === 'string') return { value: 'no-such-value', pointer: '' };
  if (schema.required?.length) return { value: {}, pointer: `/${schema.required[0]}` };
  for (const [property, sub] of Object.entries(schema.properties ?? {})) {
    if (typeof sub.type === 'string' && sub.type in WRONG_VALUE) {
      return { value: { [property]: WRONG_VALUE[sub.type] }, pointer: `/${property}` };
    }
  }
  return { value: 42, pointer: '' };
}

const schemas = loadNativeSchemas();
let scratch: ReturnType<typeof scratchDir>;

before(() => {
  scratch = scratchDir();
});
after(() => scratch.cleanup());

it('covers every native schema name the validators know', () => {
  const native = schemaNames.filter((name) => !name.startsWith('a2a:'));
  assert.deepEqual([...schemas.keys()].sort(), [...native].sort());
});

describe('each native schema', { concurrency: 4 }, () => {
  for (const [name, schema] of schemas) {
    it(`${name}: its examples validate`, async () => {
      const examples = schema.examples ?? [];
      assert.ok(examples.length > 0, `${name} has no examples`);
      const files = examples.map((example, i) => {
        const file = `${name}.example-${i}.json`;
        writeFileSync(join(scratch.dir, file), JSON.stringify(example, null, 2));
        return file;
      });
      const result = await runCli(['validate', '--schema', name, ...files], { cwd: scratch.dir });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(result.stdout, new RegExp(`^ok: ${examples.length} values? in ${files.length} files? valid`, 'm'));
    });

    it(`${name}: a breaking payload fails with its file and pointer`, async () => {
      const { value, pointer } = invalidPayload(schema);
      const file = `${name}.invalid.json`;
      writeFileSync(join(scratch.dir, file), JSON.stringify(value));
      const result = await runCli(['validate', '--schema', name, file], { cwd: scratch.dir });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      const expected = `${file}${pointer === '' ? '(root)' : pointer}: `;
      assert.ok(
        lines(result.stdout).some((line) => line.startsWith(expected)),
        `no line starting with ${expected} in:\n${result.stdout}`,
      );
      assert.match(result.stdout, /^invalid: 1 of 1 value in 1 file failed/m);
    });
  }
});
