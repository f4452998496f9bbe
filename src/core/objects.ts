// Copying plain objects on hot paths.

/**
 * `{ ...base, ...extra }` for plain data objects (own enumerable properties, extra's winning).
 * A loop, because object spread costs about ten times as much on Node 20's V8: it showed up
 * as the largest single item of a stream's per-event profile. Missing inputs count as empty;
 * when one side is empty the other is returned as it is, not copied.
 */
export function merge<A extends object, B extends object>(base: A | undefined, extra: B | undefined): A & B {
  if (!extra || isEmpty(extra)) return (base ?? {}) as A & B;
  if (!base || isEmpty(base)) return extra as A & B;
  const out: Record<string, unknown> = {};
  for (const key in base) if (Object.hasOwn(base, key)) out[key] = base[key];
  for (const key in extra) if (Object.hasOwn(extra, key)) out[key] = extra[key];
  return out as A & B;
}

function isEmpty(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return false;
  return true;
}

/**
 * A deep copy of parsed JSON data (plain objects, arrays, strings, numbers, booleans, null),
 * sharing nothing mutable with `value`. A walk over those few kinds costs about a tenth of
 * structuredClone, which must handle every kind of value, on the small objects a request copies.
 * (core/json/measure.ts measuredCopy is the other contract: it also counts the text's size, and
 * gives up on anything the text would show differently.)
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(value)) setOwn(copy, name, cloneJson((value as Record<string, unknown>)[name]));
  return copy as T;
}

/**
 * `target[name] = value`, as an own property whatever the name: JSON.parse makes a key
 * `__proto__` an ordinary member, which plain assignment would turn into the prototype.
 */
export function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}
