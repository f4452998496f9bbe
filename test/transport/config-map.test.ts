// The generated field table against the schema it comes from: one row per schema field, read
// straight from transport-config.schema.json. Each field has its camelCase name, resolves to the
// schema's @default, and a value other than the default survives toJSON, JSON text and fromJSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TRANSPORT_CONFIG_FIELDS, type ConfigEntry } from '../../generated/config/transport-config.js';
import { validate } from '../../generated/validators/index.js';
import { ResolvedConfig, type TransportConfigOptions } from '../../src/transport/config.js';

type Json = Record<string, unknown>;

const schema = JSON.parse(
  readFileSync(new URL('../../generated/schemas/native/transport-config.schema.json', import.meta.url), 'utf8'),
) as Json;

interface SchemaField {
  /** snake_case path, e.g. `limits.max_request_bytes`. */
  readonly wire: readonly string[];
  readonly schema: Json;
}

/** Every leaf of the schema, following `$ref`s into `$defs` (sections are one level deep). */
function schemaFields(): SchemaField[] {
  const defs = schema.$defs as Record<string, Json>;
  const fields: SchemaField[] = [];
  for (const [key, property] of Object.entries(schema.properties as Record<string, Json>)) {
    const nullableRef = (property.anyOf as Json[] | undefined)?.find((option) => option.$ref)?.$ref;
    const ref = (property.$ref ?? nullableRef) as string | undefined;
    if (!ref) {
      fields.push({ wire: [key], schema: property });
      continue;
    }
    const def = defs[ref.replace('#/$defs/', '')]!;
    for (const [inner, innerSchema] of Object.entries(def.properties as Record<string, Json>)) {
      fields.push({ wire: [key, inner], schema: innerSchema });
    }
  }
  return fields;
}

const camel = (snake: string) => snake.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());

function entryAt(wire: readonly string[]): ConfigEntry | undefined {
  let entries: readonly ConfigEntry[] = TRANSPORT_CONFIG_FIELDS;
  let found: ConfigEntry | undefined;
  for (const key of wire) {
    found = entries.find((entry) => entry.wire === key);
    if (!found) return undefined;
    entries = found.kind === 'section' ? found.fields : [];
  }
  return found;
}

function read(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Json | null)?.[key], value);
}

/** Options with one value set at `path` (camelCase); a value in a section stays in it. */
function optionsWith(path: readonly string[], value: unknown): TransportConfigOptions {
  return (path.length === 1 ? { [path[0]!]: value } : { [path[0]!]: { [path[1]!]: value } }) as TransportConfigOptions;
}

// A valid value other than the default, per field; the rules that tie fields together are
// kept by setting every field at once (certfile with keyfile, requireClientCert with cafile).
function otherValue(field: SchemaField): unknown {
  const value = field.schema.default;
  const types = ([] as unknown[]).concat(field.schema.type);
  if (Array.isArray(field.schema.enum)) return field.schema.enum.find((option) => option !== value);
  if (types.includes('boolean')) return !value;
  if (types.includes('integer')) return (value as number) + 3;
  if (types.includes('number')) return (value as number) + 1.5;
  if (types.includes('string')) return `/etc/parley/${field.wire.join('-')}.pem`;
  // The one list of origins takes origins; the other list (retry methods) any name.
  if (types.includes('array')) return field.wire.at(-1) === 'allowed_origins' ? ['https://app.example.com'] : ['PATCH'];
  if (types.includes('object')) return { 'grpc.max_receive_message_length': 2048, 'parley.note': 'kept' };
  throw new Error(`no other value for ${field.wire.join('.')}`);
}

const fields = schemaFields();
const everyFieldChanged: Json = {};
for (const field of fields) {
  const path = field.wire.map(camel);
  if (path.length === 1) everyFieldChanged[path[0]!] = otherValue(field);
  else ((everyFieldChanged[path[0]!] ??= {}) as Json)[path[1]!] = otherValue(field);
}

test('the schema has the fields this table expects to walk', () => {
  assert.ok(fields.length >= 30, `only ${fields.length} fields found`);
});

for (const field of fields) {
  const wirePath = field.wire.join('.');
  const path = field.wire.map(camel);

  test(`${wirePath}: in the table as ${path.join('.')}`, () => {
    const entry = entryAt(field.wire);
    assert.ok(entry, `${wirePath} is missing from the generated table`);
    assert.equal(entry.kind, 'field');
    assert.equal(entry.name, path.at(-1));
  });

  test(`${wirePath}: resolves to the schema's @default`, () => {
    assert.ok('default' in field.schema, `${wirePath} has no @default in the schema`);
    // tls is null by default; its fields' defaults show once a section is given.
    const config = new ResolvedConfig(path[0] === 'tls' ? { tls: {} } : {});
    const resolved = read(config, path);
    if (wirePath === 'grpc.maximum_concurrent_rpcs') {
      // A default that depends on another field: 0 stands for max_concurrent_requests.
      assert.equal(field.schema.default, 0);
      assert.equal(resolved, config.limits.maxConcurrentRequests);
    } else if (wirePath === 'limits.max_concurrent_model_requests') {
      // 0 stands for half of the smaller slot count (requests or streams), at least one.
      assert.equal(field.schema.default, 0);
      const { maxConcurrentRequests, maxConcurrentStreams } = config.limits;
      assert.equal(resolved, Math.max(1, Math.floor(Math.min(maxConcurrentRequests, maxConcurrentStreams) / 2)));
    } else {
      assert.deepEqual(resolved, field.schema.default);
    }
  });

  test(`${wirePath}: a value other than the default survives toJSON and fromJSON`, () => {
    const changed = read(everyFieldChanged, path);
    assert.notDeepEqual(changed, field.schema.default);
    const json = new ResolvedConfig(everyFieldChanged as TransportConfigOptions).toJSON();
    assert.deepEqual(read(json, field.wire), changed);
    const again = ResolvedConfig.fromJSON(JSON.parse(JSON.stringify(json)));
    assert.deepEqual(read(again, path), changed);
  });

  test(`${wirePath}: set alone, it is the only value that changes`, (t) => {
    if (field.wire[0] === 'tls') return t.skip('tls fields are tied together; covered by every field set at once');
    const defaults = new ResolvedConfig().toJSON() as Json;
    const json = new ResolvedConfig(optionsWith(path, read(everyFieldChanged, path))).toJSON() as Json;
    assert.deepEqual(read(json, field.wire), read(everyFieldChanged, path));
    const rest = (value: Json) => {
      const copy = structuredClone(value);
      const parent = field.wire.length === 1 ? copy : (copy[field.wire[0]!] as Json);
      delete parent[field.wire.at(-1)!];
      // maximum_concurrent_rpcs left at 0 follows max_concurrent_requests.
      if (wirePath === 'limits.max_concurrent_requests') delete (copy.grpc as Json).maximum_concurrent_rpcs;
      return copy;
    };
    assert.deepEqual(rest(json), rest(defaults));
  });
}

test('every entry of the table is a field of the schema', () => {
  const known = new Set(fields.map((field) => field.wire.join('.')));
  const walk = (entries: readonly ConfigEntry[], prefix: string): string[] =>
    entries.flatMap((entry) => (entry.kind === 'section' ? walk(entry.fields, `${entry.wire}.`) : [prefix + entry.wire]));
  assert.deepEqual(
    walk(TRANSPORT_CONFIG_FIELDS, '').filter((wire) => !known.has(wire)),
    [],
  );
});

test('every field set at once serializes to a valid transport-config document', () => {
  const json = new ResolvedConfig(everyFieldChanged as TransportConfigOptions).toJSON();
  const checked = validate('transport-config', json);
  assert.ok(checked.valid, JSON.stringify(checked.valid ? null : checked.errors));
});
