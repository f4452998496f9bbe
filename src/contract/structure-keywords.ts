// The checks on keywords that hold other schemas (properties and required, additionalProperties,
// items and prefixItems, oneOf and anyOf): each pairs up the subschemas of both sides and hands
// every pair back to the walk, reporting what has no partner.
import { isSchemaObject } from './effective-schema.js';
import { sameJson } from './json-types.js';
import { childPointer } from './pointer.js';
import { emit, type SchemaComparison } from './schema-comparison.js';

type Schema = Readonly<Record<string, unknown>>;

/** Compares one pair of subschemas at `pointer`, the way the walk that called the check does. */
type Walk = (before: unknown, after: unknown, pointer: string) => void;

export function compareObjects(c: SchemaComparison, before: Schema, after: Schema, pointer: string, walk: Walk): void {
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

export function compareArrays(c: SchemaComparison, before: Schema, after: Schema, pointer: string, walk: Walk): void {
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
export function compareBranches(c: SchemaComparison, before: Schema, after: Schema, pointer: string, walk: Walk): void {
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
