// Walks two versions of one schema side by side and reports each change through the rule table.
// `$ref` and `allOf` are taken in (effective-schema.ts) when the two sides differ in them; the
// same `$ref` on both sides is left to the comparison of its target, done at the target's own
// place. Keywords the checker does not compare are reported as UNJUDGED when they change.
import { effectiveSchema, isSchemaObject, MAX_REF_DEPTH, needsExpanding } from './effective-schema.js';
import { sameJson } from './json-types.js';
import { childPointer } from './pointer.js';
import { emit, type SchemaComparison } from './schema-comparison.js';
import { compareArrays, compareBranches, compareObjects } from './structure-keywords.js';
import {
  checkBounds,
  checkConst,
  checkDefault,
  checkEnum,
  checkErrorStatuses,
  checkStringRules,
  checkTypes,
} from './value-keywords.js';

type Schema = Readonly<Record<string, unknown>>;

/** Keywords compared by the checks below, or annotations that do not change what is valid. */
const UNDERSTOOD = new Set([
  ...['type', 'enum', 'const', 'default', 'pattern', 'format', 'multipleOf', 'uniqueItems'],
  ...['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'],
  ...['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'],
  ...[
    'properties',
    'required',
    'additionalProperties',
    'items',
    'prefixItems',
    'oneOf',
    'anyOf',
    'allOf',
    '$ref',
    '$defs',
    'definitions',
  ],
  ...['$schema', '$id', '$anchor', '$comment', '$vocabulary', 'title', 'description', 'examples', 'example', 'deprecated'],
  ...['readOnly', 'writeOnly', 'contentMediaType', 'contentEncoding', 'contentSchema'],
]);

export function compareSchemas(
  c: SchemaComparison,
  before: unknown,
  after: unknown,
  pointer = '',
  depth = 0,
  pairs: readonly string[] = [],
): void {
  if (sameJson(before, after)) return;
  if (needsExpanding(before) || needsExpanding(after)) {
    compareExpanded(c, before as Schema, after as Schema, pointer, depth, pairs);
    return;
  }
  if (before === false || after === false || before === true || after === true) {
    compareBooleans(c, before, after, pointer, depth, pairs);
    return;
  }
  if (!isSchemaObject(before) || !isSchemaObject(after)) {
    emit(c, 'UNJUDGED', pointer, 'a schema that is neither an object nor a boolean');
    return;
  }
  checkUnjudged(c, before, after, pointer);
  checkTypes(c, before, after, pointer);
  checkEnum(c, before, after, pointer, pointer === '' && before['x-http-status'] !== undefined);
  if (pointer === '') checkErrorStatuses(c, before, after, pointer);
  checkConst(c, before, after, pointer);
  checkBounds(c, before, after, pointer);
  checkStringRules(c, before, after, pointer);
  checkDefault(c, before, after, pointer);
  const walk = (was: unknown, now: unknown, at: string) => compareSchemas(c, was, now, at, depth, pairs);
  compareObjects(c, before, after, pointer, walk);
  compareArrays(c, before, after, pointer, walk);
  compareBranches(c, before, after, pointer, walk);
  compareDefinitions(before, after, pointer, walk);
}

/** The `$defs` both sides keep, each compared where it sits (one that is dropped matters only through a `$ref` to it). */
function compareDefinitions(
  before: Schema,
  after: Schema,
  pointer: string,
  walk: (was: unknown, now: unknown, at: string) => void,
): void {
  for (const defs of ['$defs', 'definitions']) {
    const was = before[defs];
    const now = after[defs];
    if (!isSchemaObject(was) || !isSchemaObject(now)) continue;
    for (const name of Object.keys(was))
      if (Object.hasOwn(now, name)) walk(was[name], now[name], childPointer(pointer, defs, name));
  }
}

/** A schema without its `$defs`: after taking in a `$ref`, those are the target's, compared in its own file. */
function withoutDefinitions(schema: boolean | Schema): boolean | Schema {
  if (typeof schema === 'boolean') return schema;
  const { $defs: _defs, definitions: _definitions, ...rest } = schema;
  return rest;
}

function compareExpanded(
  c: SchemaComparison,
  before: Schema,
  after: Schema,
  pointer: string,
  depth: number,
  pairs: readonly string[],
): void {
  const sameRef =
    isSchemaObject(before) &&
    isSchemaObject(after) &&
    typeof before.$ref === 'string' &&
    before.$ref === after.$ref &&
    before.allOf === undefined &&
    after.allOf === undefined;
  if (sameRef) {
    const { $ref: _was, ...beforeRest } = before;
    const { $ref: _now, ...afterRest } = after;
    compareSchemas(c, beforeRest, afterRest, pointer, depth, pairs);
    return;
  }
  // Two different targets compared once more while already comparing them: a recursive shape,
  // which holds if the rest of the walk finds nothing.
  const pair = `${JSON.stringify(before)}|${JSON.stringify(after)}`;
  if (pairs.includes(pair)) return;
  if (depth >= MAX_REF_DEPTH) {
    emit(c, 'UNJUDGED', pointer, `references nest more than ${MAX_REF_DEPTH} deep`);
    return;
  }
  if (isSchemaObject(before) && isSchemaObject(after)) {
    compareDefinitions(before, after, pointer, (was, now, at) => compareSchemas(c, was, now, at, depth, pairs));
  }
  const was = effectiveSchema(c.before, before);
  const now = effectiveSchema(c.after, after);
  if ('unjudged' in was || 'unjudged' in now) {
    const reason = 'unjudged' in now ? now.unjudged : (was as { unjudged: string }).unjudged;
    emit(c, 'UNJUDGED', pointer, `${reason} (${'unjudged' in now ? 'new' : 'old'} schema)`);
    return;
  }
  compareSchemas(c, withoutDefinitions(was.schema), withoutDefinitions(now.schema), pointer, depth + 1, [...pairs, pair]);
}

function compareBooleans(
  c: SchemaComparison,
  before: unknown,
  after: unknown,
  pointer: string,
  depth: number,
  pairs: readonly string[],
): void {
  if (after === false) emit(c, 'TYPE_NARROWED', pointer, 'the schema now accepts nothing (false)');
  else if (before === false) emit(c, 'TYPE_WIDENED', pointer, 'the schema accepted nothing (false) and now accepts values');
  else compareSchemas(c, before === true ? {} : before, after === true ? {} : after, pointer, depth, pairs);
}

function checkUnjudged(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  for (const keyword of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (UNDERSTOOD.has(keyword) || keyword.startsWith('x-')) continue;
    if (!sameJson(before[keyword], after[keyword])) {
      emit(c, 'UNJUDGED', childPointer(pointer, keyword), `"${keyword}" changed, and the checker does not judge that keyword`);
    }
  }
}
