// The schema a node stands for once its `$ref` and `allOf` are taken in: the target's keywords
// and the node's own, merged, so that moving a property into an `allOf` branch or behind a
// `$ref` is not mistaken for removing it. Following stops at a depth bound and on a reference
// that leads back to itself; a merge the checker cannot do (two branches setting one keyword
// differently) is returned as a reason instead of a schema.
import type { Contract } from './load.js';
import { valueAt } from './pointer.js';
import { splitCanonical, UNRESOLVED_PREFIX } from './refs.js';
import { intersectTypes, sameJson, typeSet } from './json-types.js';

type SchemaNode = boolean | Readonly<Record<string, unknown>>;
export type Effective = { readonly schema: SchemaNode } | { readonly unjudged: string };

/** How many `$ref`/`allOf` steps are followed from one place before the checker gives up. */
export const MAX_REF_DEPTH = 16;

const FIRST_WINS = new Set(['title', 'description', 'examples', '$comment', '$id', '$schema', '$anchor', '$defs', 'definitions']);

export function isSchemaObject(node: unknown): node is Readonly<Record<string, unknown>> {
  return node !== null && typeof node === 'object' && !Array.isArray(node);
}

/** Whether `node` has a `$ref` or an `allOf` to take in. */
export function needsExpanding(node: unknown): boolean {
  return isSchemaObject(node) && (typeof node.$ref === 'string' || Array.isArray(node.allOf));
}

export function effectiveSchema(contract: Contract, node: unknown, depth = 0, trail: readonly string[] = []): Effective {
  if (typeof node === 'boolean') return { schema: node };
  if (!isSchemaObject(node)) return { unjudged: 'a schema that is neither an object nor a boolean' };
  if (depth > MAX_REF_DEPTH) return { unjudged: `more than ${MAX_REF_DEPTH} nested $ref/allOf steps` };
  const { $ref, allOf, ...rest } = node;
  const parts: SchemaNode[] = [rest];
  if (typeof $ref === 'string') {
    if ($ref.startsWith(UNRESOLVED_PREFIX)) return { unjudged: `$ref "${$ref.slice(1)}" cannot be resolved` };
    if (trail.includes($ref)) return { unjudged: `$ref "${$ref}" leads back to itself` };
    const place = splitCanonical($ref)!;
    const target = effectiveSchema(contract, valueAt(contract.schemas.get(place.file), place.pointer), depth + 1, [
      ...trail,
      $ref,
    ]);
    if ('unjudged' in target) return target;
    parts.unshift(target.schema);
  } else if ($ref !== undefined) {
    return { unjudged: '$ref is not a string' };
  }
  if (allOf !== undefined) {
    if (!Array.isArray(allOf)) return { unjudged: 'allOf is not an array' };
    for (const branch of allOf) {
      const expanded = effectiveSchema(contract, branch, depth + 1, trail);
      if ('unjudged' in expanded) return expanded;
      parts.push(expanded.schema);
    }
  }
  let merged: Effective = { schema: true };
  for (const part of parts) {
    merged = mergeSchemas((merged as { schema: SchemaNode }).schema, part);
    if ('unjudged' in merged) return merged;
  }
  return merged;
}

/** One schema admitting what both admit, for the keywords the checker compares. */
function mergeSchemas(a: SchemaNode, b: SchemaNode): Effective {
  if (a === true) return { schema: b };
  if (b === true) return { schema: a };
  if (a === false || b === false) return { schema: false };
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!Object.hasOwn(out, key) || FIRST_WINS.has(key) || key.startsWith('x-')) {
      if (!Object.hasOwn(out, key)) out[key] = value;
      continue;
    }
    const merged = mergeKeyword(key, out[key], value, a, b);
    if (merged === undefined) return { unjudged: `allOf sets "${key}" in two places differently` };
    out[key] = merged;
  }
  return { schema: out };
}

function mergeKeyword(
  key: string,
  a: unknown,
  b: unknown,
  left: Readonly<Record<string, unknown>>,
  right: Readonly<Record<string, unknown>>,
): unknown {
  if (sameJson(a, b)) return a;
  if (key === 'properties' && isSchemaObject(a) && isSchemaObject(b)) {
    const properties: Record<string, unknown> = { ...a };
    for (const [name, schema] of Object.entries(b)) {
      properties[name] = Object.hasOwn(properties, name) ? { allOf: [properties[name], schema] } : schema;
    }
    return properties;
  }
  if (key === 'required' && Array.isArray(a) && Array.isArray(b)) return [...new Set([...a, ...b])];
  if (key === 'type') return intersectTypes(typeSet(left), typeSet(right));
  if (key === 'enum' && Array.isArray(a) && Array.isArray(b))
    return a.filter((value) => b.some((other) => sameJson(value, other)));
  return undefined;
}
