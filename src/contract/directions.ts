// Which way each schema travels, derived from the operations manifests: a request body or a
// query travels as a request, a response or a stream event as an answer. A `$ref`'d schema
// travels every way its users do, so the directions flow along references until nothing
// changes (three values, so this ends even on cycles). Keys are canonical references
// (`file#pointer`); a place no key covers travels both ways, since it is published all the same.
import { type Direction, unionDirection } from './findings.js';
import type { Contract } from './load.js';
import { pointerContains, valueAt } from './pointer.js';
import { splitCanonical, walkSchemas } from './refs.js';

export type Directions = ReadonlyMap<string, Direction>;

const SKIP_WHEN_WALKING = new Set(['enum', 'const', 'default', 'examples', 'example', '$defs', 'definitions']);

/** The file a manifest's schema name stands for; undefined for names of another namespace (`a2a:...`) or unknown names. */
export function schemaFileOf(contract: Contract, name: unknown): string | undefined {
  if (typeof name !== 'string' || name.includes(':')) return undefined;
  return [`${name}.schema.json`, `${name}.json`, name].find((file) => contract.schemas.has(file));
}

export function deriveDirections(contract: Contract): Directions {
  const directions = new Map<string, Direction>();
  const queue: string[] = [];
  const mark = (key: string, direction: Direction) => {
    const before = directions.get(key);
    const after = unionDirection(before, direction);
    if (after === before) return;
    directions.set(key, after);
    queue.push(key);
  };
  for (const manifest of contract.manifests.values()) {
    for (const operation of manifest.operations as unknown[]) {
      if (operation === null || typeof operation !== 'object') continue;
      const { request, query, response } = operation as Record<string, unknown>;
      for (const [name, direction] of [
        [request, 'request'],
        [query, 'request'],
        [response, 'answer'],
      ] as const) {
        const file = schemaFileOf(contract, name);
        if (file !== undefined) mark(`${file}#`, direction);
      }
    }
  }
  while (queue.length > 0) {
    const key = queue.shift()!;
    const place = splitCanonical(key)!;
    const direction = directions.get(key)!;
    walkSchemas(
      valueAt(contract.schemas.get(place.file), place.pointer),
      (node) => {
        if (typeof node.$ref === 'string' && splitCanonical(node.$ref)) mark(node.$ref, direction);
      },
      SKIP_WHEN_WALKING,
    );
  }
  return directions;
}

/** Merges the directions of both sides, so a use dropped in the new contract still counts. */
export function mergeDirections(a: Directions, b: Directions): Directions {
  const merged = new Map(a);
  for (const [key, direction] of b) merged.set(key, unionDirection(merged.get(key), direction));
  return merged;
}

/** The direction of the place `pointer` in `file`: every key that contains it, together; both when none does. */
export function directionAt(directions: Directions, file: string, pointer: string): Direction {
  let found: Direction | undefined;
  for (const [key, direction] of directions) {
    const place = splitCanonical(key)!;
    if (place.file === file && pointerContains(place.pointer, pointer)) found = unionDirection(found, direction);
  }
  return found ?? 'both';
}
