// What a discovery query asks for, and whether a card matches it. A query's keys filter on the
// card attribute of the same name, exactly. `tags` (and any list attribute) matches when every
// requested value is on the card. In a query string several tags travel as repeated
// parameters (`?tags=a&tags=b`) or as one comma-separated value (`?tags=a,b`); both mean the
// same. `filter_by`, when present, is the whole filter as it stands: an object filters on its
// entries (possible in process), anything else (the text a query string carries) is no filter.
import type { AgentCard } from '../../generated/types/index.js';
import type { IndexKeys } from './registry-store.js';

export type DiscoveryFilter = Readonly<Record<string, unknown>>;

/** Query parameters that carry credentials (spec: Authentication), never card attributes. */
const CREDENTIAL_PARAMS = new Set(['api_key', 'apikey', 'token']);

/** The filter of a discovery query, or null when it has none (every live card matches). */
export function discoveryFilter(query: unknown): DiscoveryFilter | null {
  if (!isObject(query)) return null;
  if (Object.hasOwn(query, 'filter_by')) {
    const filterBy = query.filter_by;
    return isObject(filterBy) && Object.keys(filterBy).length > 0 ? filterBy : null;
  }
  let filter: Record<string, unknown> | null = null;
  for (const key of Object.keys(query)) {
    if (CREDENTIAL_PARAMS.has(key)) continue;
    const value = query[key];
    if (value === undefined) continue;
    filter ??= {};
    filter[key] = key === 'tags' ? splitTags(value) : value;
  }
  return filter;
}

/** `a,b` and [`a`, `b,c`] become the list of tags they name; empty pieces are dropped. */
function splitTags(value: unknown): unknown {
  const pieces =
    typeof value === 'string' ? [value] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;
  if (!pieces) return value;
  const tags: string[] = [];
  for (const piece of pieces as string[]) {
    for (const part of piece.split(',')) {
      const tag = part.trim();
      if (tag !== '' && !tags.includes(tag)) tags.push(tag);
    }
  }
  return tags;
}

/** How many values a filter asks for: one per attribute, one per item of a list (each tag). */
export function filterSize(filter: DiscoveryFilter): number {
  let size = 0;
  for (const value of Object.values(filter)) size += Array.isArray(value) ? value.length : 1;
  return size;
}

/** What the secondary indexes can answer: name, role and tags given as strings. */
export function indexKeys(filter: DiscoveryFilter): IndexKeys | null {
  const keys: { name?: string; role?: string; tags?: string[] } = {};
  let any = false;
  if (typeof filter.name === 'string') {
    keys.name = filter.name;
    any = true;
  }
  if (typeof filter.role === 'string') {
    keys.role = filter.role;
    any = true;
  }
  const tags = requestedValues(filter.tags);
  if (tags && tags.length > 0) {
    keys.tags = [...new Set(tags)];
    any = true;
  }
  return any ? keys : null;
}

/** Whether the card satisfies every entry of the filter. */
export function matches(card: AgentCard, filter: DiscoveryFilter): boolean {
  for (const key of Object.keys(filter)) {
    const wanted = filter[key];
    const actual = (card as unknown as Record<string, unknown>)[key];
    if (Array.isArray(actual) && (key === 'tags' || !Array.isArray(wanted))) {
      const values = requestedValues(wanted);
      if (!values?.every((value) => actual.includes(value))) return false;
    } else if (!sameJson(actual, wanted)) {
      return false;
    }
  }
  return true;
}

/** A single string or a list of strings as a list; anything else cannot be asked of a list. */
function requestedValues(value: unknown): string[] | null {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return null;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every(
      (key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
