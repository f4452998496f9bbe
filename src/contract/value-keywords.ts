// The checks on keywords that restrict a value in place (type, enum, const, bounds, pattern,
// format, default): each compares the keyword in the old and new schema at one place.
import { admitsType, sameJson, typeSet } from './json-types.js';
import { childPointer } from './pointer.js';
import { emit, type SchemaComparison } from './schema-comparison.js';

type Schema = Readonly<Record<string, unknown>>;

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

export function checkTypes(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  const was = typeSet(before);
  const now = typeSet(after);
  const lost = was.filter((type) => !admitsType(now, type));
  const gained = now.filter((type) => !admitsType(was, type));
  const at = childPointer(pointer, 'type');
  const change = `type ${list(was)} became ${list(now)}`;
  if (lost.length > 0 && gained.length > 0) emit(c, 'TYPE_CHANGED', at, change);
  else if (lost.length > 0) emit(c, 'TYPE_NARROWED', at, `${change}: ${list(lost)} no longer accepted`);
  else if (gained.length > 0) emit(c, 'TYPE_WIDENED', at, `${change}: ${list(gained)} now accepted`);
}

/** `errorCatalogue`: the enum is a list of error codes (the schema carries `x-http-status`). */
export function checkEnum(c: SchemaComparison, before: Schema, after: Schema, pointer: string, errorCatalogue: boolean): void {
  const was = before.enum;
  const now = after.enum;
  const at = childPointer(pointer, 'enum');
  if (!Array.isArray(was) && !Array.isArray(now)) return;
  if (!Array.isArray(was)) {
    emit(c, 'ENUM_ADDED', at, `values are now limited to ${list(now as unknown[])}`);
    return;
  }
  if (!Array.isArray(now)) {
    emit(c, 'ENUM_REMOVED', at, `the enum ${list(was)} was dropped`);
    return;
  }
  const removed = was.filter((value) => !now.some((other) => sameJson(value, other)));
  const added = now.filter((value) => !was.some((other) => sameJson(value, other)));
  if (removed.length > 0) {
    if (errorCatalogue) emit(c, 'ERROR_CODE_REMOVED', at, `error code ${list(removed)} removed`);
    else emit(c, 'ENUM_VALUE_REMOVED', at, `enum value ${list(removed)} removed`);
  }
  // A catalogue of error codes is open by contract: clients must accept codes they do not know.
  if (added.length > 0 && !errorCatalogue) emit(c, 'ENUM_VALUE_ADDED', at, `enum value ${list(added)} added`);
}

export function checkErrorStatuses(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  const was = before['x-http-status'];
  const now = after['x-http-status'];
  if (was === null || typeof was !== 'object' || now === null || typeof now !== 'object') return;
  for (const [code, status] of Object.entries(was)) {
    const next = (now as Record<string, unknown>)[code];
    if (next !== undefined && !sameJson(next, status)) {
      emit(
        c,
        'ERROR_STATUS_CHANGED',
        childPointer(pointer, 'x-http-status', code),
        `error code "${code}" is now sent with ${JSON.stringify(next)}, was ${JSON.stringify(status)}`,
      );
    }
  }
}

export function checkConst(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  const had = Object.hasOwn(before, 'const');
  const has = Object.hasOwn(after, 'const');
  const at = childPointer(pointer, 'const');
  if (had && has && !sameJson(before.const, after.const)) {
    emit(c, 'CONST_CHANGED', at, `const ${JSON.stringify(before.const)} became ${JSON.stringify(after.const)}`);
  } else if (!had && has) emit(c, 'CONST_ADDED', at, `value pinned to ${JSON.stringify(after.const)}`);
  else if (had && !has) emit(c, 'CONST_REMOVED', at, `const ${JSON.stringify(before.const)} dropped`);
}

export function checkBounds(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  for (const keyword of [...LOWER_BOUNDS, ...UPPER_BOUNDS, 'multipleOf']) {
    // A bound that is not a number (draft 4's boolean exclusiveMinimum, say) is not compared.
    const odd = (value: unknown) => value !== undefined && typeof value !== 'number';
    if ((odd(before[keyword]) || odd(after[keyword])) && !sameJson(before[keyword], after[keyword])) {
      emit(c, 'UNJUDGED', childPointer(pointer, keyword), `"${keyword}" changed to or from a value that is not a number`);
    }
  }
  for (const keyword of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
    const was = numberOrUndefined(before[keyword]);
    const now = numberOrUndefined(after[keyword]);
    if (was === now) continue;
    const lower = LOWER_BOUNDS.includes(keyword);
    const tighter = was === undefined || (now !== undefined && (lower ? now > was : now < was));
    reportBound(c, keyword, tighter, pointer, was, now);
  }
  const was = numberOrUndefined(before.multipleOf);
  const now = numberOrUndefined(after.multipleOf);
  if (was !== now) {
    const looser = now === undefined || (was !== undefined && was % now === 0);
    reportBound(c, 'multipleOf', !looser, pointer, was, now);
  }
  if (Boolean(before.uniqueItems) !== Boolean(after.uniqueItems)) {
    reportBound(c, 'uniqueItems', Boolean(after.uniqueItems), pointer, Boolean(before.uniqueItems), Boolean(after.uniqueItems));
  }
}

function reportBound(c: SchemaComparison, keyword: string, tighter: boolean, pointer: string, was: unknown, now: unknown): void {
  const change = `${keyword} ${was === undefined ? 'absent' : JSON.stringify(was)} became ${now === undefined ? 'absent' : JSON.stringify(now)}`;
  emit(c, tighter ? 'BOUND_TIGHTENED' : 'BOUND_LOOSENED', childPointer(pointer, keyword), change);
}

/** `pattern` and `format`: added narrows, dropped widens, changed may do either. */
export function checkStringRules(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  for (const [keyword, rules] of [
    ['pattern', ['PATTERN_ADDED', 'PATTERN_CHANGED', 'PATTERN_REMOVED']],
    ['format', ['FORMAT_ADDED', 'FORMAT_CHANGED', 'FORMAT_REMOVED']],
  ] as const) {
    const was = before[keyword];
    const now = after[keyword];
    if (sameJson(was, now)) continue;
    const at = childPointer(pointer, keyword);
    if (was === undefined) emit(c, rules[0], at, `${keyword} ${JSON.stringify(now)} added`);
    else if (now === undefined) emit(c, rules[2], at, `${keyword} ${JSON.stringify(was)} dropped`);
    else emit(c, rules[1], at, `${keyword} ${JSON.stringify(was)} became ${JSON.stringify(now)}`);
  }
}

export function checkDefault(c: SchemaComparison, before: Schema, after: Schema, pointer: string): void {
  if (sameJson(before.default, after.default)) return;
  const show = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));
  emit(c, 'DEFAULT_CHANGED', childPointer(pointer, 'default'), `default ${show(before.default)} became ${show(after.default)}`);
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function list(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}
