// `$ref` in one form: when a contract is loaded, every reference is rewritten to
// `<file>#<pointer>`, the file relative to the schema folder, so that two schemas can be compared
// without knowing which file each came from, and the same target is the same string on both
// sides. A reference that leads nowhere becomes `?<original>`, which the checker reports.
import { posix } from 'node:path';
import { pointerTokens, valueAt } from './pointer.js';

export const UNRESOLVED_PREFIX = '?';

/** Keys whose values are data, not schemas: a `$ref` inside them is not a reference. */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/** Rewrites every `$ref` in every schema (in place) to its canonical form. */
export function canonicalizeRefs(schemas: ReadonlyMap<string, unknown>): void {
  const ids = new Map<string, string>();
  for (const [file, schema] of schemas) {
    const id = idOf(schema);
    if (id !== undefined) ids.set(stripFragment(id), file);
  }
  for (const [file, schema] of schemas) {
    walkSchemas(schema, (node) => {
      if (typeof node.$ref === 'string')
        node.$ref = canonicalRef(schemas, ids, file, node.$ref) ?? `${UNRESOLVED_PREFIX}${node.$ref}`;
    });
  }
}

/** The `{file, pointer}` a canonical reference names, or undefined for an unresolved one. */
export function splitCanonical(ref: string): { file: string; pointer: string } | undefined {
  if (ref.startsWith(UNRESOLVED_PREFIX)) return undefined;
  const hash = ref.indexOf('#');
  return { file: ref.slice(0, hash), pointer: ref.slice(hash + 1) };
}

/** Calls `visit` on every object in a schema document, skipping data-valued keywords. */
export function walkSchemas(
  node: unknown,
  visit: (node: Record<string, unknown>) => void,
  skip: ReadonlySet<string> = DATA_KEYS,
): void {
  if (Array.isArray(node)) {
    for (const item of node) walkSchemas(item, visit, skip);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  visit(record);
  for (const [key, value] of Object.entries(record)) if (!skip.has(key)) walkSchemas(value, visit, skip);
}

function canonicalRef(
  schemas: ReadonlyMap<string, unknown>,
  ids: ReadonlyMap<string, string>,
  from: string,
  ref: string,
): string | undefined {
  const hash = ref.indexOf('#');
  const target = hash < 0 ? ref : ref.slice(0, hash);
  let fragment: string;
  try {
    fragment = hash < 0 ? '' : decodeURIComponent(ref.slice(hash + 1));
  } catch {
    return undefined;
  }
  const file = target === '' ? from : targetFile(schemas, ids, from, target);
  if (file === undefined) return undefined;
  const document = schemas.get(file);
  if (fragment === '' || fragment.startsWith('/')) {
    return pointerTokens(fragment) !== undefined && valueAt(document, fragment) !== undefined ? `${file}#${fragment}` : undefined;
  }
  const anchored = anchorPointer(document, fragment);
  return anchored === undefined ? undefined : `${file}#${anchored}`;
}

function targetFile(
  schemas: ReadonlyMap<string, unknown>,
  ids: ReadonlyMap<string, string>,
  from: string,
  target: string,
): string | undefined {
  const isUri = /^[a-z][a-z0-9+.-]*:/i.test(target);
  if (!isUri) {
    const relative = posix.normalize(posix.join(posix.dirname(from), target));
    if (schemas.has(relative)) return relative;
  }
  const base = idOf(schemas.get(from));
  try {
    const absolute = isUri ? target : base !== undefined ? new URL(target, base).href : undefined;
    return absolute === undefined ? undefined : ids.get(stripFragment(absolute));
  } catch {
    return undefined;
  }
}

/** The pointer of the subschema declaring `$anchor: name`, searched breadth-first. */
function anchorPointer(document: unknown, name: string): string | undefined {
  const queue: Array<[unknown, string]> = [[document, '']];
  while (queue.length > 0) {
    const [node, pointer] = queue.shift()!;
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && (node as Record<string, unknown>).$anchor === name) return pointer;
    for (const [key, value] of Object.entries(node)) {
      if (!DATA_KEYS.has(key)) queue.push([value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return undefined;
}

function idOf(schema: unknown): string | undefined {
  const id = schema !== null && typeof schema === 'object' ? (schema as { $id?: unknown }).$id : undefined;
  return typeof id === 'string' ? id : undefined;
}

function stripFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}
