// Walks the generated table of configuration fields (generated/config/transport-config.ts):
// camelCase options in, defaults applied and each field's schema rules checked; and the
// snake_case serialized form out and back. Rules that relate two fields are not here: each
// section's owner applies them to the values this returns.
import { ConfigError } from '../core/errors.js';
import type { ConfigEntry, ConfigField } from '../../generated/config/transport-config.js';

type Values = Record<string, unknown>;

/** Resolves `options` against `entries`; `prefix` is the camelCase path of the section. */
export function resolveEntries(entries: readonly ConfigEntry[], options: Values, prefix: string): Values {
  const values: Values = {};
  for (const entry of entries) {
    const path = prefix + entry.name;
    const given = options[entry.name];
    if (entry.kind === 'field') {
      values[entry.name] = checkField(entry, given === undefined ? entry.default : given, path);
      continue;
    }
    const section = given === undefined ? entry.default : given;
    if (section === null && entry.nullable) values[entry.name] = null;
    else if (isPlainObject(section)) values[entry.name] = resolveEntries(entry.fields, section, `${path}.`);
    else throw new ConfigError(path, section, entry.nullable ? 'must be an object or null' : 'must be an object');
  }
  return values;
}

/** Checks one value against its field's rules; lists and maps come back as frozen copies. */
export function checkField(field: ConfigField, value: unknown, path: string): unknown {
  if (value === null && field.nullable) return null;
  if (!fits(field, value)) throw new ConfigError(path, value, ruleOf(field));
  if (Array.isArray(value)) return Object.freeze([...value]);
  if (field.type === 'object') return Object.freeze({ ...(value as Values) });
  return value;
}

/** The serialized form of resolved values. An empty map is left out: absent and {} mean the same. */
export function toWire(entries: readonly ConfigEntry[], values: Values): Values {
  const wire: Values = {};
  for (const entry of entries) {
    const value = values[entry.name];
    if (entry.kind === 'section') wire[entry.wire] = value === null ? null : toWire(entry.fields, value as Values);
    else if (Array.isArray(value)) wire[entry.wire] = [...value];
    else if (entry.type !== 'object') wire[entry.wire] = value;
    else if (Object.keys(value as Values).length > 0) wire[entry.wire] = { ...(value as Values) };
  }
  return wire;
}

/**
 * The camelCase options a serialized form stands for, unchecked (resolving checks them). A key
 * the table does not know is refused, so a misspelt setting is never silently dropped.
 */
export function fromWire(entries: readonly ConfigEntry[], wire: Values, prefix: string): Values {
  const options: Values = {};
  for (const [key, value] of Object.entries(wire)) {
    const entry = entries.find((candidate) => candidate.wire === key);
    if (!entry) throw new ConfigError(prefix + key, value, 'is not a transport configuration field');
    options[entry.name] =
      entry.kind === 'section' && isPlainObject(value) ? fromWire(entry.fields, value, `${prefix}${key}.`) : value;
  }
  return options;
}

export function isPlainObject(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fits(field: ConfigField, value: unknown): boolean {
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
    case 'integer':
      return (
        typeof value === 'number' &&
        (field.type === 'integer' ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
        (field.minimum === undefined || value >= field.minimum) &&
        (field.exclusiveMinimum === undefined || value > field.exclusiveMinimum)
      );
    case 'string':
      return (
        typeof value === 'string' &&
        value.length >= (field.minLength ?? 0) &&
        (field.enum === undefined || field.enum.includes(value))
      );
    case 'array':
      return Array.isArray(value) && value.every((item) => typeof item === field.items);
    case 'object':
      return isPlainObject(value) && Object.values(value).every((item) => fitsMapValue(field, item));
  }
}

function fitsMapValue(field: ConfigField, item: unknown): boolean {
  if (typeof item === 'number') return Number.isFinite(item) && field.values!.includes('number');
  return typeof item === 'string' && field.values!.includes('string');
}

/** The rule a field states, in words; built only when a value breaks it. */
function ruleOf(field: ConfigField): string {
  let rule: string;
  switch (field.type) {
    case 'boolean':
      rule = 'must be true or false';
      break;
    case 'string':
      if (field.enum) rule = `must be one of ${field.enum.join(', ')}`;
      else rule = field.minLength ? 'must be a non-empty string' : 'must be a string';
      break;
    case 'array':
      rule = `must be a list of ${field.items}s`;
      break;
    case 'object':
      rule = `must be an object whose values are ${field.values!.map((type) => `${type}s`).join(' or ')}`;
      break;
    default:
      rule = numberRule(field);
  }
  return field.nullable ? `${rule} or null` : rule;
}

function numberRule(field: ConfigField): string {
  const kind = field.type === 'integer' ? 'integer' : 'number';
  const noun = kind === 'integer' ? 'an integer' : 'a number';
  const { minimum, exclusiveMinimum } = field;
  if (exclusiveMinimum === 0 || (kind === 'integer' && minimum === 1)) return `must be a positive ${kind}`;
  if (minimum === 0) return `must be ${noun} that is not negative`;
  if (minimum !== undefined) return `must be ${noun} of at least ${minimum}`;
  if (exclusiveMinimum !== undefined) return `must be ${noun} above ${exclusiveMinimum}`;
  return `must be a finite ${kind}`;
}
