// The rule table, one row per rule and direction: a schema before and after, the direction it
// travels (from the test manifest), and the verdict the checker must give: breaking, warning,
// unjudged, or compatible (nothing reported at all). The operation rows change the manifest.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Verdict } from '../../src/contract/findings.js';
import { RULES, type RuleName } from '../../src/contract/rules.js';
import { compareSides, operation, type Side, usedAs } from './contract-sides.js';

type Direction = 'request' | 'answer' | 'both';

interface SchemaRow {
  readonly rule: RuleName;
  readonly direction: Direction;
  readonly before: unknown;
  readonly after: unknown;
  readonly expect: Verdict;
  /** Other schema files, the same on both sides unless `othersAfter` is given. */
  readonly others?: Readonly<Record<string, unknown>>;
  readonly othersAfter?: Readonly<Record<string, unknown>>;
}

const object = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...more,
});
const str = (more: Record<string, unknown> = {}) => ({ type: 'string', ...more });
const row = (
  rule: RuleName,
  direction: Direction,
  before: unknown,
  after: unknown,
  expect: Verdict,
  more: Partial<SchemaRow> = {},
): SchemaRow => ({
  rule,
  direction,
  before,
  after,
  expect,
  ...more,
});

const SCHEMA_ROWS: readonly SchemaRow[] = [
  row('PROPERTY_REMOVED', 'request', object({ a: str(), b: str() }), object({ a: str() }), 'breaking'),
  row('PROPERTY_REMOVED', 'answer', object({ a: str(), b: str() }), object({ a: str() }), 'breaking'),
  row('PROPERTY_NEWLY_REQUIRED', 'request', object({ a: str() }), object({ a: str() }, { required: ['a'] }), 'breaking'),
  row('PROPERTY_NEWLY_REQUIRED', 'answer', object({ a: str() }), object({ a: str() }, { required: ['a'] }), 'compatible'),
  row('PROPERTY_NO_LONGER_REQUIRED', 'answer', object({ a: str() }, { required: ['a'] }), object({ a: str() }), 'breaking'),
  row('PROPERTY_NO_LONGER_REQUIRED', 'request', object({ a: str() }, { required: ['a'] }), object({ a: str() }), 'compatible'),
  // An optional property added to an open object widens nothing anyone validates.
  row('PROPERTY_ADDED_TO_CLOSED', 'both', object({ a: str() }), object({ a: str(), b: str() }), 'compatible'),
  row(
    'PROPERTY_ADDED_TO_CLOSED',
    'answer',
    object({ a: str() }, { additionalProperties: false }),
    object({ a: str(), b: str() }, { additionalProperties: false }),
    'breaking',
  ),
  row(
    'PROPERTY_ADDED_TO_CLOSED',
    'request',
    object({ a: str() }, { additionalProperties: false }),
    object({ a: str(), b: str() }, { additionalProperties: false }),
    'compatible',
  ),
  row('TYPE_NARROWED', 'request', { type: ['string', 'null'] }, { type: 'string' }, 'breaking'),
  row('TYPE_NARROWED', 'request', { type: 'number' }, { type: 'integer' }, 'breaking'),
  row('TYPE_NARROWED', 'answer', { type: ['string', 'null'] }, { type: 'string' }, 'compatible'),
  row('TYPE_WIDENED', 'answer', { type: 'integer' }, { type: 'number' }, 'breaking'),
  row('TYPE_WIDENED', 'request', { type: 'string' }, { type: ['string', 'null'] }, 'compatible'),
  row('TYPE_CHANGED', 'request', { type: 'string' }, { type: 'boolean' }, 'breaking'),
  row('TYPE_CHANGED', 'answer', { type: 'string' }, { type: 'boolean' }, 'breaking'),
  row('ENUM_VALUE_REMOVED', 'request', str({ enum: ['a', 'b'] }), str({ enum: ['a'] }), 'breaking'),
  row('ENUM_VALUE_REMOVED', 'answer', str({ enum: ['a', 'b'] }), str({ enum: ['a'] }), 'compatible'),
  row('ENUM_VALUE_ADDED', 'answer', str({ enum: ['a'] }), str({ enum: ['a', 'b'] }), 'breaking'),
  row('ENUM_VALUE_ADDED', 'request', str({ enum: ['a'] }), str({ enum: ['a', 'b'] }), 'compatible'),
  row('ENUM_ADDED', 'request', str(), str({ enum: ['a'] }), 'breaking'),
  row('ENUM_REMOVED', 'answer', str({ enum: ['a'] }), str(), 'breaking'),
  row('CONST_CHANGED', 'both', { const: 'v1' }, { const: 'v2' }, 'breaking'),
  row('CONST_ADDED', 'request', str(), str({ const: 'v1' }), 'breaking'),
  row('CONST_REMOVED', 'answer', str({ const: 'v1' }), str(), 'breaking'),
  row('ADDITIONAL_PROPERTIES_TIGHTENED', 'request', object({}), object({}, { additionalProperties: false }), 'breaking'),
  row(
    'ADDITIONAL_PROPERTIES_TIGHTENED',
    'answer',
    object({}),
    object({}, { additionalProperties: { type: 'string' } }),
    'compatible',
  ),
  row('ADDITIONAL_PROPERTIES_LOOSENED', 'answer', object({}, { additionalProperties: false }), object({}), 'breaking'),
  row('ADDITIONAL_PROPERTIES_LOOSENED', 'request', object({}, { additionalProperties: false }), object({}), 'compatible'),
  row('BOUND_TIGHTENED', 'request', { type: 'integer', minimum: 1 }, { type: 'integer', minimum: 2 }, 'breaking'),
  row('BOUND_TIGHTENED', 'request', { type: 'integer', maximum: 10 }, { type: 'integer', maximum: 9 }, 'breaking'),
  row('BOUND_TIGHTENED', 'request', str(), str({ minLength: 1 }), 'breaking'),
  row('BOUND_TIGHTENED', 'request', str({ maxLength: 64 }), str({ maxLength: 32 }), 'breaking'),
  row('BOUND_TIGHTENED', 'request', { type: 'array', maxItems: 5 }, { type: 'array', maxItems: 4 }, 'breaking'),
  row('BOUND_TIGHTENED', 'answer', str({ maxLength: 64 }), str({ maxLength: 32 }), 'compatible'),
  row('BOUND_LOOSENED', 'answer', str({ maxLength: 32 }), str({ maxLength: 64 }), 'warning'),
  row('BOUND_LOOSENED', 'request', { type: 'integer', minimum: 2 }, { type: 'integer' }, 'compatible'),
  row('PATTERN_ADDED', 'request', str(), str({ pattern: '^[a-z]+$' }), 'breaking'),
  row('PATTERN_CHANGED', 'request', str({ pattern: '^[a-z]+$' }), str({ pattern: '^[a-z0-9]+$' }), 'breaking'),
  row('PATTERN_CHANGED', 'answer', str({ pattern: '^[a-z]+$' }), str({ pattern: '^[a-z0-9]+$' }), 'warning'),
  row('PATTERN_REMOVED', 'answer', str({ pattern: '^[a-z]+$' }), str(), 'warning'),
  row('FORMAT_ADDED', 'request', str(), str({ format: 'date-time' }), 'breaking'),
  row('FORMAT_CHANGED', 'request', str({ format: 'date' }), str({ format: 'date-time' }), 'breaking'),
  row('FORMAT_REMOVED', 'request', str({ format: 'uri' }), str(), 'compatible'),
  row('FORMAT_REMOVED', 'answer', str({ format: 'uri' }), str(), 'warning'),
  row('BRANCH_REMOVED', 'request', { oneOf: [str(), { type: 'integer' }] }, { oneOf: [str()] }, 'breaking'),
  row('BRANCH_REMOVED', 'answer', { anyOf: [str(), { type: 'integer' }] }, { anyOf: [str()] }, 'compatible'),
  row('BRANCH_ADDED', 'answer', { anyOf: [str()] }, { anyOf: [str(), { type: 'null' }] }, 'breaking'),
  row('DEFAULT_CHANGED', 'request', str({ default: 'a' }), str({ default: 'b' }), 'warning'),
  row('DEFAULT_CHANGED', 'answer', str(), str({ default: 'b' }), 'warning'),
  row(
    'ERROR_CODE_REMOVED',
    'answer',
    str({ enum: ['a', 'b'], 'x-http-status': { a: 400, b: 404 } }),
    str({ enum: ['a'], 'x-http-status': { a: 400 } }),
    'breaking',
  ),
  // Clients must accept codes they do not know, so a new error code breaks nobody.
  row(
    'ERROR_CODE_REMOVED',
    'answer',
    str({ enum: ['a'], 'x-http-status': { a: 400 } }),
    str({ enum: ['a', 'b'], 'x-http-status': { a: 400, b: 404 } }),
    'compatible',
  ),
  row(
    'ERROR_STATUS_CHANGED',
    'answer',
    str({ enum: ['a'], 'x-http-status': { a: 400 } }),
    str({ enum: ['a'], 'x-http-status': { a: 409 } }),
    'breaking',
  ),
  row('UNJUDGED', 'answer', { not: { type: 'null' } }, { not: { type: 'string' } }, 'unjudged'),
  // biome-ignore lint/suspicious/noThenProperty: `then` here is the JSON Schema keyword, the subject of the row.
  row('UNJUDGED', 'request', object({}), object({}, { if: { required: ['a'] }, then: { required: ['b'] } }), 'unjudged'),
  row('UNJUDGED', 'request', str(), str({ 'x-max-words': 3, maxWords: 3 }), 'unjudged'),
  row(
    'UNJUDGED',
    'request',
    { type: 'number', minimum: 0, exclusiveMinimum: false },
    { type: 'number', minimum: 0, exclusiveMinimum: true },
    'unjudged',
  ),
  row(
    'UNJUDGED',
    'request',
    object({ a: { $ref: 'part.schema.json' } }),
    object({ a: { $ref: 'gone.schema.json' } }),
    'unjudged',
    {
      others: { 'part.schema.json': str() },
    },
  ),
  // A property that moves behind a $ref or into an allOf branch is still there.
  row(
    'PROPERTY_REMOVED',
    'both',
    object({ a: str(), b: str() }),
    { allOf: [{ $ref: 'base.schema.json' }, object({ b: str() })] },
    'compatible',
    {
      othersAfter: { 'base.schema.json': object({ a: str() }) },
    },
  ),
  // A $ref that now points elsewhere is followed and the targets compared.
  row(
    'ENUM_VALUE_REMOVED',
    'request',
    object({ s: { $ref: 'v1.schema.json' } }),
    object({ s: { $ref: 'v2.schema.json' } }),
    'breaking',
    {
      others: { 'v1.schema.json': str({ enum: ['a', 'b'] }), 'v2.schema.json': str({ enum: ['a'] }) },
    },
  ),
];

/** Rows where the schema under test is reached through a $ref from the one the manifest names. */
const DIRECTION_ROWS: ReadonlyArray<{ direction: Direction; expect: Verdict }> = [
  { direction: 'request', expect: 'compatible' },
  { direction: 'answer', expect: 'breaking' },
  { direction: 'both', expect: 'breaking' },
];

interface OperationRow {
  readonly rule: RuleName;
  readonly before: Partial<Side>;
  readonly after: Partial<Side>;
  readonly expect: Verdict;
}

const op = operation;
const OPERATION_ROWS: readonly OperationRow[] = [
  { rule: 'OPERATION_REMOVED', before: { operations: [op('a'), op('b')] }, after: { operations: [op('a')] }, expect: 'breaking' },
  {
    rule: 'OPERATION_METHOD_CHANGED',
    before: { operations: [op('a')] },
    after: { operations: [op('a', { method: 'PUT' })] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_PATH_CHANGED',
    before: { operations: [op('a')] },
    after: { operations: [op('a', { path: '/v2/a' })] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_STATUS_CHANGED',
    before: { operations: [op('a', { status: 200 })] },
    after: { operations: [op('a', { status: 201 })] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_CONTENT_TYPE_CHANGED',
    before: { operations: [op('a')] },
    after: { operations: [op('a', { responseContentType: 'text/plain' })] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_STREAMING_CHANGED',
    before: { operations: [op('a')] },
    after: { operations: [op('a', { streaming: true })] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_NOW_PROTECTED',
    before: { operations: [op('a', { public: true })] },
    after: { operations: [op('a')] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_BODY_ADDED',
    before: { operations: [op('a')] },
    after: { operations: [op('a', { request: 'thing' })] },
    expect: 'breaking',
  },
  {
    rule: 'OPERATION_ANSWER_SCHEMA_REMOVED',
    before: { operations: [op('a', { response: 'thing' })] },
    after: { operations: [op('a')] },
    expect: 'breaking',
  },
  // Adding an operation, or a schema to an answer that had none, breaks nobody.
  {
    rule: 'OPERATION_REMOVED',
    before: { operations: [op('a')] },
    after: { operations: [op('a'), op('b', { response: 'thing' })] },
    expect: 'compatible',
  },
  {
    rule: 'STATUS_TEXT_REMOVED',
    before: { statusTexts: { ok: 'ok', gone: 'gone' } },
    after: { statusTexts: { ok: 'ok' } },
    expect: 'breaking',
  },
  {
    rule: 'STATUS_TEXT_CHANGED',
    before: { statusTexts: { ok: 'ok' } },
    after: { statusTexts: { ok: 'fine' } },
    expect: 'breaking',
  },
];

function assertVerdict(findings: ReturnType<typeof compareSides>, rule: RuleName, expect: Verdict): void {
  if (expect === 'compatible') {
    assert.deepEqual(findings, [], 'nothing is reported');
    return;
  }
  const found = findings.find((finding) => finding.rule === rule);
  assert.ok(found, `${rule} reported; got ${JSON.stringify(findings, null, 2)}`);
  assert.equal(found.verdict, expect);
}

describe('contract rules', () => {
  for (const r of SCHEMA_ROWS) {
    test(`${r.rule} in ${r.direction}: ${r.expect}`, () => {
      const operations = usedAs(r.direction);
      const findings = compareSides(
        { schemas: { 'thing.schema.json': r.before, ...r.others }, operations },
        { schemas: { 'thing.schema.json': r.after, ...(r.othersAfter ?? r.others) }, operations },
      );
      assertVerdict(findings, r.rule, r.expect);
      if (r.expect !== 'compatible') assert.ok(findings.every((finding) => finding.file === 'thing.schema.json'));
    });
  }

  for (const r of DIRECTION_ROWS) {
    test(`a $ref'd schema travels as its user does: ENUM_VALUE_ADDED behind a ${r.direction} is ${r.expect}`, () => {
      const operations = usedAs(r.direction);
      const holder = object({ s: { $ref: 'state.schema.json' } });
      const findings = compareSides(
        { schemas: { 'thing.schema.json': holder, 'state.schema.json': str({ enum: ['a'] }) }, operations },
        { schemas: { 'thing.schema.json': holder, 'state.schema.json': str({ enum: ['a', 'b'] }) }, operations },
      );
      assertVerdict(findings, 'ENUM_VALUE_ADDED', r.expect);
      if (r.expect !== 'compatible') assert.equal(findings[0]!.file, 'state.schema.json');
    });
  }

  test('SCHEMA_REMOVED: a schema file of the baseline is gone', () => {
    const findings = compareSides(
      { schemas: { 'thing.schema.json': str(), 'old.schema.json': str() }, operations: [] },
      { schemas: { 'thing.schema.json': str() }, operations: [] },
    );
    assert.deepEqual(
      findings.map(({ file, rule, verdict }) => ({ file, rule, verdict })),
      [{ file: 'old.schema.json', rule: 'SCHEMA_REMOVED', verdict: 'breaking' }],
    );
  });

  test('UNJUDGED: references that lead back to themselves past the bound are reported, not passed', () => {
    const loop = { allOf: [{ $ref: 'loop.schema.json' }] };
    const findings = compareSides(
      { schemas: { 'thing.schema.json': str(), 'loop.schema.json': str() }, operations: usedAs('request') },
      { schemas: { 'thing.schema.json': { $ref: 'loop.schema.json' }, 'loop.schema.json': loop }, operations: usedAs('request') },
    );
    assert.ok(
      findings.some(
        (finding) =>
          finding.rule === 'UNJUDGED' && finding.verdict === 'unjudged' && /leads back to itself/.test(finding.message),
      ),
      JSON.stringify(findings),
    );
  });

  test("a root that gains a $ref keeps its own $defs compared, and the target's are left to the target's file", () => {
    const defs = (values: string[]) => ({ $defs: { Kind: str({ enum: values }) } });
    const findings = compareSides(
      {
        schemas: {
          'thing.schema.json': { ...object({ k: { $ref: '#/$defs/Kind' } }), ...defs(['a', 'b']) },
          'base.schema.json': object({}),
        },
        operations: usedAs('request'),
      },
      {
        schemas: {
          'thing.schema.json': {
            $ref: 'base.schema.json',
            ...object({ k: { $ref: '#/$defs/Kind' } }),
            ...defs(['a']),
          },
          'base.schema.json': { ...object({}), ...defs(['z']) },
        },
        operations: usedAs('request'),
      },
    );
    assert.deepEqual(
      findings.map(({ file, pointer, rule, message }) => ({ file, pointer, rule, message })),
      [{ file: 'thing.schema.json', pointer: '/$defs/Kind/enum', rule: 'ENUM_VALUE_REMOVED', message: 'enum value "b" removed' }],
    );
  });

  test('a $ref by absolute $id, or relative to the $id, reaches the file; one that reaches nothing is UNJUDGED', () => {
    const holder = object({
      a: { $ref: 'https://schemas.example/common/kind.json#/$defs/Kind' },
      b: { $ref: '../common/kind.json#/$defs/Kind' },
      c: { $ref: 'kind.json#/$defs/Kind' },
    });
    const kind = (values: string[]) => ({
      $id: 'https://schemas.example/common/kind.json',
      $defs: { Kind: str({ enum: values }) },
    });
    const side = (values: string[]): Side => ({
      schemas: {
        'thing.schema.json': { $id: 'https://schemas.example/api/thing.json', ...holder },
        'nested/kind.json': kind(values),
      },
      operations: usedAs('request'),
    });
    const findings = compareSides(side(['a', 'b']), side(['a']));
    assert.deepEqual(
      findings.map(({ file, pointer, rule }) => ({ file, pointer, rule })),
      [
        { file: 'nested/kind.json', pointer: '/$defs/Kind/enum', rule: 'ENUM_VALUE_REMOVED' },
        // Relative to the $id, kind.json is https://schemas.example/api/kind.json: no such schema.
        { file: 'thing.schema.json', pointer: '/properties/c/$ref', rule: 'UNJUDGED' },
      ],
    );
  });

  test('an operation that names another schema has the two compared in its direction', () => {
    const schemas = {
      'thing.schema.json': object({ a: str() }),
      'thing2.schema.json': object({ a: str() }, { required: ['a'] }),
    };
    const findings = compareSides(
      { schemas, operations: [op('a', { request: 'thing', response: 'thing' })] },
      { schemas, operations: [op('a', { request: 'thing2', response: 'thing2' })] },
    );
    assert.deepEqual(
      findings.map(({ file, pointer, rule, direction, message }) => ({ file, pointer, rule, direction, message })),
      [
        {
          file: 'thing2.schema.json',
          pointer: '/properties/a',
          rule: 'PROPERTY_NEWLY_REQUIRED',
          direction: 'request',
          message: 'property "a" is now required (compared with "thing", the old request of operation "a")',
        },
      ],
    );
  });

  test('MANIFEST_REMOVED: a manifest of the baseline is gone', () => {
    const findings = compareSides(
      { schemas: { 'thing.schema.json': str() }, operations: [op('a')], manifestFile: 'old.json' },
      { schemas: { 'thing.schema.json': str() }, operations: [op('a')] },
    );
    assert.deepEqual(
      findings.map(({ file, rule, verdict }) => ({ file, rule, verdict })),
      [{ file: 'old.json', rule: 'MANIFEST_REMOVED', verdict: 'breaking' }],
    );
  });

  test('UNJUDGED: references nested deeper than the bound are reported, not passed', () => {
    const chain: Record<string, unknown> = { 'r20.schema.json': str() };
    for (let i = 0; i < 20; i++) chain[`r${i}.schema.json`] = { $ref: `r${i + 1}.schema.json` };
    const findings = compareSides(
      { schemas: { 'thing.schema.json': str(), ...chain }, operations: usedAs('request') },
      { schemas: { 'thing.schema.json': { $ref: 'r0.schema.json' }, ...chain }, operations: usedAs('request') },
    );
    assert.ok(
      findings.some((finding) => finding.rule === 'UNJUDGED' && /more than 16/.test(finding.message)),
      JSON.stringify(findings),
    );
  });

  test('UNJUDGED: an operation naming a schema that is not in the folder', () => {
    const findings = compareSides(
      { schemas: { 'thing.schema.json': str() }, operations: [op('a', { request: 'thing' })] },
      { schemas: { 'thing.schema.json': str() }, operations: [op('a', { request: 'thnig' })] },
    );
    assert.deepEqual(
      findings.map(({ file, pointer, rule, verdict }) => ({ file, pointer, rule, verdict })),
      [{ file: 'service.json', pointer: '/operations/0/request', rule: 'UNJUDGED', verdict: 'unjudged' }],
    );
  });

  for (const r of OPERATION_ROWS) {
    test(`${r.rule}: ${r.expect}`, () => {
      const side = (part: Partial<Side>): Side => ({
        schemas: { 'thing.schema.json': object({}) },
        operations: [op('base')],
        ...part,
      });
      const findings = compareSides(side(r.before), side(r.after));
      assertVerdict(findings, r.rule, r.expect);
      if (r.expect !== 'compatible') assert.equal(findings.find((finding) => finding.rule === r.rule)!.file, 'service.json');
    });
  }

  test('docs/codegen.md has the whole rule table, with each verdict', () => {
    const doc = readFileSync(new URL('../../docs/codegen.md', import.meta.url), 'utf8');
    for (const [name, rule] of Object.entries(RULES)) {
      assert.ok(
        doc.includes(`| \`${name}\` | ${rule.request} | ${rule.answer} | ${rule.summary} |`),
        `${name} is documented as in rules.ts`,
      );
    }
  });

  test('every rule of the table has a row', () => {
    const covered = new Set<string>([
      ...SCHEMA_ROWS.filter((r) => r.expect !== 'compatible').map((r) => r.rule),
      ...OPERATION_ROWS.filter((r) => r.expect !== 'compatible').map((r) => r.rule),
      'ENUM_VALUE_ADDED',
      'SCHEMA_REMOVED',
      'MANIFEST_REMOVED',
    ]);
    assert.deepEqual(
      Object.keys(RULES).filter((rule) => !covered.has(rule)),
      [],
    );
  });
});
