// How deeply JSON nests, measured without recursion. Every step after parsing that walks a
// value (schema validation, normalization, protobuf conversion, JSON.stringify to measure) is
// recursive, and a value a few thousand levels deep exhausts the call stack in any of them.
// Request bodies are held to MAX_JSON_DEPTH here, right after JSON.parse (which does not
// recurse) and before any of those steps runs. This file is also the one depth rule of
// core/json/: the recursive walks there (normalize.ts, measure.ts) count levels the same way and
// give up past the same MAX_JSON_DEPTH, falling back to a path that gives the same result.

/**
 * The deepest nesting of arrays and objects a request body (or an envelope's `data` or
 * `params`) may have: `{}` and `[]` are one level, `{"a":[]}` two. Chosen so that every wire
 * carries it with room to spare: binary protobuf spends two messages per level
 * (google.protobuf.Value plus Struct or ListValue) against the usual recursion limit of 100.
 */
export const MAX_JSON_DEPTH = 32;

// One stack for every check: the walk is synchronous, so calls never overlap, and a request
// does not pay for two fresh arrays.
const pending: unknown[] = [];
const levels: number[] = [];

/**
 * True when a parsed value nests arrays and objects more than `limit` levels deep. Only
 * containers are visited; the walk stops at the first one past the limit.
 */
export function jsonValueTooDeep(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  let top = 1;
  let used = 1;
  pending[0] = value;
  levels[0] = 1;
  let tooDeep = false;
  while (top > 0) {
    top--;
    const current = pending[top] as Record<string, unknown> | unknown[];
    const level = levels[top]!;
    if (level > limit) {
      tooDeep = true;
      break;
    }
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const item = current[i];
        if (item !== null && typeof item === 'object') {
          pending[top] = item;
          levels[top++] = level + 1;
        }
      }
    } else {
      for (const key in current) {
        const item = current[key];
        if (item !== null && typeof item === 'object') {
          pending[top] = item;
          levels[top++] = level + 1;
        }
      }
    }
    if (top > used) used = top;
  }
  // Keeps no request data alive between calls.
  pending.fill(undefined, 0, used);
  return tooDeep;
}
