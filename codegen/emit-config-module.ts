// Derives the camelCase side of the transport configuration from its generated JSON Schema:
// the option types users write (with each field's description as JSDoc), the resolved types,
// and one table of every field with its snake_case and camelCase names, its default and its
// rules. src/transport/config.ts resolves, checks and serializes by walking that table, so a
// new option is written once, in schemas/config/transport-config.ts.
import type { JsonSchema } from './schema-catalog.js';
import { generatedBanner } from './output-tree.js';
import { pascal } from './emit-types.js';

export const CONFIG_MODULE_PATH = 'generated/config/transport-config.ts';

/** The value kinds the configuration uses; anything else in the schema stops codegen. */
type FieldType = 'number' | 'integer' | 'boolean' | 'string' | 'array' | 'object';

interface Field {
  readonly kind: 'field';
  readonly name: string;
  readonly wire: string;
  readonly type: FieldType;
  readonly nullable: boolean;
  readonly default: unknown;
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly minLength?: number;
  readonly enum?: readonly string[];
  readonly items?: string;
  readonly values?: readonly string[];
  readonly description: string;
}

interface Section {
  readonly kind: 'section';
  readonly name: string;
  readonly wire: string;
  readonly nullable: boolean;
  readonly default: null | Record<string, never>;
  readonly fields: readonly Field[];
  readonly description: string;
  readonly sectionDescription: string;
}

type Entry = Field | Section;

// The shapes of the table, written into the module so it needs no import.
const TABLE_TYPES = `/** One configuration value: its names on both sides, its default and the schema's rules for it. */
export interface ConfigField {
  readonly kind: 'field';
  /** camelCase, as users write it. */
  readonly name: string;
  /** snake_case, as serialized. */
  readonly wire: string;
  readonly type: 'number' | 'integer' | 'boolean' | 'string' | 'array' | 'object';
  /** null is a value of its own (not "use the default"). */
  readonly nullable: boolean;
  readonly default: unknown;
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly minLength?: number;
  readonly enum?: readonly string[];
  /** The element type of an array. */
  readonly items?: 'string';
  /** The value types of an object used as a map. */
  readonly values?: readonly ('number' | 'string')[];
}

/** A group of fields under one key (limits, retry, tls, grpc). */
export interface ConfigSection {
  readonly kind: 'section';
  readonly name: string;
  readonly wire: string;
  readonly nullable: boolean;
  /** null: absent means no section; {}: absent means every field at its default. */
  readonly default: null | Readonly<Record<string, never>>;
  readonly fields: readonly ConfigField[];
}

export type ConfigEntry = ConfigField | ConfigSection;`;

export function emitConfigModule(schema: JsonSchema): string {
  const entries = readEntries(schema);
  const sections = entries.filter((entry): entry is Section => entry.kind === 'section');
  const blocks: string[] = [
    '// The camelCase transport configuration derived from transport-config.schema.json: option types,\n' +
      '// resolved types, and the field table the resolver and the serializer walk.',
    TABLE_TYPES,
  ];
  for (const section of sections) {
    blocks.push(typeDeclaration(`${pascal(section.wire)}Options`, section.sectionDescription, section.fields, 'options'));
    blocks.push(typeDeclaration(pascal(section.wire), section.sectionDescription, section.fields, 'resolved'));
  }
  const optionsDoc = 'Transport options, in camelCase; every field is optional.';
  const resolvedDoc = 'Every transport setting once resolved: defaults applied, rules checked.';
  blocks.push(typeDeclaration('TransportConfigOptions', optionsDoc, entries, 'options'));
  blocks.push(typeDeclaration('ResolvedConfigFields', resolvedDoc, entries, 'resolved'));
  blocks.push(
    `/** Every field of the transport configuration, in the schema's order. */\n` +
      `export const TRANSPORT_CONFIG_FIELDS: readonly ConfigEntry[] = ${tableLiteral(entries)};`,
  );
  return `${generatedBanner('codegen/emit-config-module.ts', 'schemas/config/transport-config.ts')}\n${blocks.join('\n\n')}\n`;
}

function readEntries(schema: JsonSchema): Entry[] {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties(schema, 'TransportConfig')).map(([wire, property]) => {
    const target = sectionTarget(property);
    if (!target) return readField(wire, property, 'TransportConfig');
    const def = defs[target.ref.replace('#/$defs/', '')];
    if (!def) throw new Error(`transport config: ${wire} refers to a missing ${target.ref}`);
    if (property.default !== undefined && property.default !== null) {
      throw new Error(`transport config: the default of section ${wire} can only be null`);
    }
    return {
      kind: 'section',
      name: camel(wire),
      wire,
      nullable: target.nullable,
      default: property.default === null ? null : {},
      fields: Object.entries(properties(def, wire)).map(([key, inner]) => readField(key, inner, wire)),
      description: describe(property),
      sectionDescription: typeof def.description === 'string' ? def.description : describe(property),
    } satisfies Section;
  });
}

function properties(schema: JsonSchema, where: string): Record<string, JsonSchema> {
  if (schema.type !== 'object' || typeof schema.properties !== 'object') {
    throw new Error(`transport config: ${where} is not an object`);
  }
  return schema.properties as Record<string, JsonSchema>;
}

/** A property that is a `$ref` to a $defs object, alone or with null. */
function sectionTarget(property: JsonSchema): { ref: string; nullable: boolean } | null {
  if (typeof property.$ref === 'string') return { ref: property.$ref, nullable: false };
  const options = property.anyOf as JsonSchema[] | undefined;
  if (!Array.isArray(options)) return null;
  const ref = options.find((option) => typeof option.$ref === 'string');
  const rest = options.filter((option) => option !== ref);
  if (!ref || rest.length !== 1 || rest[0]!.type !== 'null') throw new Error('transport config: unsupported anyOf');
  return { ref: ref.$ref as string, nullable: true };
}

function readField(wire: string, schema: JsonSchema, where: string): Field {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
  const nullable = types.includes('null');
  const [type, ...others] = types.filter((type) => type !== 'null');
  const path = `${where}.${wire}`;
  if (others.length > 0 || !isFieldType(type)) {
    throw new Error(`transport config: ${path} has an unsupported type ${JSON.stringify(schema.type)}`);
  }
  if (schema.default === undefined) throw new Error(`transport config: ${path} needs a @default`);
  const field: Record<string, unknown> = { kind: 'field', name: camel(wire), wire, type, nullable, default: schema.default };
  for (const key of ['minimum', 'exclusiveMinimum', 'minLength'] as const) {
    if (typeof schema[key] === 'number') field[key] = schema[key];
  }
  if (Array.isArray(schema.enum)) field.enum = schema.enum;
  if (type === 'array') {
    const items = (schema.items ?? {}) as JsonSchema;
    if (items.type !== 'string') throw new Error(`transport config: ${path} must be a list of strings`);
    field.items = 'string';
  }
  if (type === 'object') {
    const values = (schema.additionalProperties ?? {}) as JsonSchema;
    const valueTypes = Array.isArray(values.type) ? values.type : [values.type];
    if (!valueTypes.every((value) => value === 'number' || value === 'string')) {
      throw new Error(`transport config: ${path} must map names to numbers or strings`);
    }
    field.values = valueTypes;
  }
  field.description = describe(schema);
  return field as unknown as Field;
}

const FIELD_TYPES: readonly string[] = ['number', 'integer', 'boolean', 'string', 'array', 'object'] satisfies FieldType[];

function isFieldType(type: string | undefined): type is FieldType {
  return type !== undefined && FIELD_TYPES.includes(type);
}

function describe(schema: JsonSchema): string {
  return typeof schema.description === 'string' ? schema.description : '';
}

function typeDeclaration(name: string, description: string, entries: readonly Entry[], form: 'options' | 'resolved'): string {
  const members = entries.map((entry) => {
    const key = form === 'options' ? `${entry.name}?` : `readonly ${entry.name}`;
    const type = entry.kind === 'section' ? sectionType(entry, form) : fieldType(entry);
    // A section that defaults to {} takes each field's own default, which its fields document.
    const shown = entry.kind === 'section' && entry.default !== null ? undefined : entry.default;
    return `${jsDoc(entry.description, shown, '  ')}  ${key}: ${type};`;
  });
  return `${jsDoc(description, undefined, '')}export interface ${name} {\n${members.join('\n')}\n}`;
}

function sectionType(section: Section, form: 'options' | 'resolved'): string {
  const name = pascal(section.wire) + (form === 'options' ? 'Options' : '');
  return section.nullable ? `${name} | null` : name;
}

function fieldType(field: Field): string {
  let type: string;
  if (field.enum) type = field.enum.map((value) => `'${value}'`).join(' | ');
  else if (field.type === 'number' || field.type === 'integer') type = 'number';
  else if (field.type === 'array') type = `readonly ${field.items}[]`;
  else if (field.type === 'object') type = `Readonly<Record<string, ${field.values!.join(' | ')}>>`;
  else type = field.type;
  return field.nullable ? `${type} | null` : type;
}

function jsDoc(description: string, defaultValue: unknown, indent: string): string {
  const lines = wrap(description, 100 - indent.length);
  if (defaultValue !== undefined) lines.push(`@default ${JSON.stringify(defaultValue)}`);
  if (lines.length === 0) return '';
  const body = lines.map((line) => `${indent} * ${line.replace(/\*\//g, '*\\/')}`.trimEnd()).join('\n');
  return `${indent}/**\n${body}\n${indent} */\n`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function tableLiteral(entries: readonly Entry[]): string {
  const rows = entries.map((entry) => {
    if (entry.kind === 'field') return `  ${fieldLiteral(entry)},`;
    const fields = entry.fields.map((field) => `      ${fieldLiteral(field)},`).join('\n');
    const head =
      `kind: 'section', name: '${entry.name}', wire: '${entry.wire}', ` +
      `nullable: ${entry.nullable}, default: ${JSON.stringify(entry.default)}`;
    return `  {\n    ${head},\n    fields: [\n${fields}\n    ],\n  },`;
  });
  return `[\n${rows.join('\n')}\n]`;
}

function fieldLiteral(field: Field): string {
  const { description: _description, ...data } = field;
  const parts = Object.entries(data).map(([key, value]) => `${key}: ${literal(value)}`);
  return `{ ${parts.join(', ')} }`;
}

function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object') {
    const parts = Object.entries(value).map(([key, inner]) => `${JSON.stringify(key)}: ${literal(inner)}`);
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  }
  return JSON.stringify(value);
}

function camel(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
