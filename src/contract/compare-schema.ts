// Walks two versions of one schema side by side and reports each change through the rule table.
// `$ref` and `allOf` are taken in (effective-schema.ts) when the two sides differ in them; the
// same `$ref` on both sides is left to the comparison of its target, done at the target's own
// place. Keywords the checker does not compare are reported as UNJUDGED when they change.
import { effectiveSchema, isSchemaObject, MAX_REF_DEPTH, needsExpanding } from './effective-schema.js';
import { sameJson } from './json-types.js';
import { childPointer } from './pointer.js';
import { emit, type SchemaComparison } from './schema-comparison.js';
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
  for (const defs of ['$defs', 'definitions']) {
    const was = before[defs];
    const now = after[defs];
    if (!isSchemaObject(was) || !isSchemaObject(now)) continue;
    for (const name of Object.keys(was))
      if (Object.hasOwn(now, name)) walk(was[name], now[name], childPointer(pointer, defs, name));
  }
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
  const was = effectiveSchema(c.before, before);
  const now = effectiveSchema(c.after, after);
  if ('unjudged' in was || 'unjudged' in now) {
    const reason = 'unjudged' in now ? now.unjudged : (was as { unjudged: string }).unjudged;
    emit(c, 'UNJUDGED', pointer, `${reason} (${'unjudged' in now ? 'new' : 'old'} schema)`);
    return;
  }
  compareSchemas(c, was.schema, now.schema, pointer, depth + 1, [...pairs, pair]);
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

type Walk = (before: unknown, after: unknown, pointer: string) => void;

function compareObjects(c: SchemaComparison, before: Schema, after: Schema, pointer: string, walk: Walk): void {
  const was = isSchemaObject(before.properties) ? before.properties : {};
  const now = isSchemaObject(after.properties) ? after.properties : {};
  const closedBefore = before.additionalProperties !== undefined && before.additionalProperties !== true;
  for (const name of Object.keys(was)) {
    const at = childPointer(pointer, 'properties', name);
    if (Object.hasOwn(now, name)) walk(was[name], now[name], at);
    else emit(c, 'PROPERTY_REMOVED', at, `property "${name}" removed`);
  }
  for (const name of Object.keys(now)) {
    if (!Object.hasOwn(was, name) && closedBefore) {
      emit(
        c,
        'PROPERTY_ADDED_TO_CLOSED',
        childPointer(pointer, 'properties', name),
        `property "${name}" added where extra keys were not free`,
      );
    }
  }
  const requiredBefore = stringList(before.required);
  const requiredAfter = stringList(after.required);
  for (const name of requiredAfter) {
    if (!requiredBefore.includes(name))
      emit(c, 'PROPERTY_NEWLY_REQUIRED', propertyPointer(pointer, now, name), `property "${name}" is now required`);
  }
  for (const name of requiredBefore) {
    if (!requiredAfter.includes(name) && !(Object.hasOwn(was, name) && !Object.hasOwn(now, name))) {
      emit(c, 'PROPERTY_NO_LONGER_REQUIRED', propertyPointer(pointer, now, name), `property "${name}" is no longer required`);
    }
  }
  compareAdditional(
    c,
    before.additionalProperties,
    after.additionalProperties,
    childPointer(pointer, 'additionalProperties'),
    walk,
  );
}

function compareAdditional(c: SchemaComparison, before: unknown, after: unknown, at: string, walk: Walk): void {
  const kind = (value: unknown) => (value === undefined || value === true ? 'allowed' : value === false ? 'false' : 'a schema');
  const was = kind(before);
  const now = kind(after);
  if (was === 'a schema' && now === 'a schema') walk(before, after, at);
  else if (was === now) return;
  else if (was === 'allowed' || now === 'false')
    emit(c, 'ADDITIONAL_PROPERTIES_TIGHTENED', at, `extra keys went from ${was} to ${now}`);
  else emit(c, 'ADDITIONAL_PROPERTIES_LOOSENED', at, `extra keys went from ${was} to ${now}`);
}

function compareArrays(c: SchemaComparison, before: Schema, after: Schema, pointer: string, walk: Walk): void {
  if (before.items !== undefined || after.items !== undefined) {
    if (Array.isArray(before.items) || Array.isArray(after.items)) {
      if (!sameJson(before.items, after.items))
        emit(c, 'UNJUDGED', childPointer(pointer, 'items'), 'array-form "items" changed (use prefixItems)');
    } else walk(before.items ?? true, after.items ?? true, childPointer(pointer, 'items'));
  }
  const was = Array.isArray(before.prefixItems) ? before.prefixItems : [];
  const now = Array.isArray(after.prefixItems) ? after.prefixItems : [];
  for (let i = 0; i < Math.max(was.length, now.length); i++)
    walk(was[i] ?? true, now[i] ?? true, childPointer(pointer, 'prefixItems', i));
}

/** oneOf/anyOf: equal branches pair up wherever they sit; the rest pair up in order, and what is left over was removed or added. */
function compareBranches(c: SchemaComparison, before: Schema, after: Schema, pointer: string, walk: Walk): void {
  for (const keyword of ['oneOf', 'anyOf']) {
    const was = before[keyword];
    const now = after[keyword];
    if (was === undefined && now === undefined) continue;
    const at = childPointer(pointer, keyword);
    if (!Array.isArray(was) || !Array.isArray(now)) {
      if (!sameJson(was, now))
        emit(c, 'UNJUDGED', at, `"${keyword}" was ${was === undefined ? 'added' : now === undefined ? 'dropped' : 'changed'}`);
      continue;
    }
    const unmatchedBefore = was.map((_, i) => i).filter((i) => !now.some((branch) => sameJson(branch, was[i])));
    const unmatchedAfter = now.map((_, i) => i).filter((i) => !was.some((branch) => sameJson(branch, now[i])));
    const paired = Math.min(unmatchedBefore.length, unmatchedAfter.length);
    for (let k = 0; k < paired; k++)
      walk(was[unmatchedBefore[k]!], now[unmatchedAfter[k]!], childPointer(at, unmatchedAfter[k]!));
    for (const i of unmatchedBefore.slice(paired))
      emit(c, 'BRANCH_REMOVED', childPointer(at, i), `${keyword} branch ${i} removed`);
    for (const i of unmatchedAfter.slice(paired)) emit(c, 'BRANCH_ADDED', childPointer(at, i), `${keyword} branch ${i} added`);
  }
}

function propertyPointer(pointer: string, properties: Schema, name: string): string {
  return Object.hasOwn(properties, name) ? childPointer(pointer, 'properties', name) : childPointer(pointer, 'required');
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
