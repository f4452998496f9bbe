// The set of JSON types a schema admits, as the `type` keyword (or, without it, its `enum` or
// `const` values) says. `integer` is a part of `number`: a schema of type number admits integers.
import { isDeepStrictEqual } from 'node:util';

const ALL_TYPES = ['null', 'boolean', 'object', 'array', 'number', 'string'] as const;

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The types `schema` admits, without duplicates. */
export function typeSet(schema: Readonly<Record<string, unknown>>): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return [...new Set(type.filter((t): t is string => typeof t === 'string'))];
  if (Object.hasOwn(schema, 'const')) return [typeOfValue(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(typeOfValue))];
  return [...ALL_TYPES];
}

export function admitsType(types: readonly string[], type: string): boolean {
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** The types both sets admit, for merging `allOf` branches. */
export function intersectTypes(a: readonly string[], b: readonly string[]): string[] {
  const both = new Set<string>();
  for (const type of a) if (admitsType(b, type)) both.add(type);
  for (const type of b) if (admitsType(a, type)) both.add(type);
  if (both.has('number') && !(a.includes('number') && b.includes('number'))) both.delete('number');
  return [...both];
}

export function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}
