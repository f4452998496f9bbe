// Turns JSON Schemas into TypeScript declarations, one module per schema. It covers the
// subset parley's schemas use: types (and type unions), enum/const, properties/required,
// additionalProperties, items, $ref (to sibling files and to $defs), oneOf/anyOf/allOf.
// Keywords that types cannot express (formats, ranges, if/then) are left to the validators.
import type { CatalogEntry, JsonSchema } from './schema-catalog.js';
import { generatedBanner } from './output-tree.js';

export interface TypeModule {
  readonly path: string;
  readonly content: string;
}

interface Context {
  readonly entry: CatalogEntry;
  readonly byFile: ReadonlyMap<string, CatalogEntry>;
  /** Imported type name -> module file stem. */
  readonly imports: Map<string, string>;
}

export function emitTypeModules(entries: readonly CatalogEntry[], outDir: string): TypeModule[] {
  const byFile = new Map(entries.map((entry) => [entry.fileName, entry]));
  const modules = entries.map((entry) => ({
    path: `${outDir}/${stem(entry)}.ts`,
    content: emitModule({ entry, byFile, imports: new Map() }),
  }));
  const index = entries
    .map((entry) => `export type * from './${stem(entry)}.js';`)
    .sort()
    .join('\n');
  modules.push({
    path: `${outDir}/index.ts`,
    content: `${generatedBanner('codegen/emit-types.ts', 'every schema in generated/types')}\n${index}\n`,
  });
  return modules;
}

function stem(entry: CatalogEntry): string {
  return entry.fileName.replace(/\.schema\.json$/, '');
}

function emitModule(ctx: Context): string {
  const { entry } = ctx;
  const blocks: string[] = [];
  const defs = (entry.schema.$defs ?? {}) as Record<string, JsonSchema>;
  for (const key of Object.keys(defs).sort()) {
    blocks.push(declaration(defTypeName(entry, key, defs[key]!), defs[key]!, ctx));
  }
  blocks.unshift(declaration(entry.typeName, entry.schema, ctx));
  const imports = [...ctx.imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, file]) => `import type { ${name} } from './${file}.js';`);
  return [
    generatedBanner('codegen/emit-types.ts', entry.source),
    ...(imports.length ? [imports.join('\n'), ''] : []),
    blocks.join('\n\n'),
    '',
  ].join('\n');
}

function defTypeName(entry: CatalogEntry, key: string, def: JsonSchema): string {
  return typeof def.title === 'string' ? def.title : entry.typeName + pascal(key);
}

function declaration(name: string, schema: JsonSchema, ctx: Context): string {
  const doc = jsDoc(schema, '');
  const body = typeOf(schema, ctx, '');
  const isInterface = body.startsWith('{') && !body.includes('\n} |') && !body.includes('} & {');
  return isInterface ? `${doc}export interface ${name} ${body}` : `${doc}export type ${name} = ${body};`;
}

function typeOf(schema: JsonSchema | boolean | undefined, ctx: Context, indent: string): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') return refType(schema.$ref, ctx);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  for (const combinator of ['oneOf', 'anyOf'] as const) {
    const options = schema[combinator];
    // A discriminated union may also say `type: object`; the members carry the structure.
    if (Array.isArray(options) && (!schema.type || schema.type === 'object') && !schema.properties) {
      return unique(options.map((option) => typeOf(option as JsonSchema, ctx, indent))).join(' | ');
    }
  }
  if (Array.isArray(schema.allOf) && !schema.type && !schema.properties) {
    return schema.allOf.map((part) => typeOf(part as JsonSchema, ctx, indent)).join(' & ');
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema, ctx, indent) : 'unknown';
  return unique(types.map((type) => primitive(String(type), schema, ctx, indent))).join(' | ');
}

function primitive(type: string, schema: JsonSchema, ctx: Context, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(schema.items as JsonSchema | undefined, ctx, indent);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(schema, ctx, indent);
    default:
      throw new Error(`${ctx.entry.fileName}: unsupported type ${type}`);
  }
}

function objectType(schema: JsonSchema, ctx: Context, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    const optional = required.has(key) ? '' : '?';
    lines.push(`${jsDoc(property, inner)}${inner}${propertyKey(key)}${optional}: ${typeOf(property, ctx, inner)};`);
  }
  const extra = schema.additionalProperties;
  // An open object gets an index signature only when the schema says so explicitly; an absent
  // `additionalProperties` keeps the type closed so typos in hand-written payloads are caught.
  if (extra !== undefined && extra !== false) {
    const valueType = extra === true ? 'unknown' : typeOf(extra as JsonSchema, ctx, inner);
    lines.push(`${inner}[key: string]: ${Object.keys(properties).length && valueType !== 'unknown' ? 'unknown' : valueType};`);
  }
  if (lines.length === 0) return 'Record<string, unknown>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function refType(ref: string, ctx: Context): string {
  const [file, pointer] = ref.split('#');
  let target = ctx.entry;
  if (file) {
    const found = ctx.byFile.get(file);
    if (!found) throw new Error(`${ctx.entry.fileName}: $ref to unknown schema ${ref}`);
    target = found;
  }
  let name = target.typeName;
  if (pointer) {
    const match = /^\/\$defs\/([^/]+)$/.exec(pointer);
    if (!match) throw new Error(`${ctx.entry.fileName}: unsupported $ref ${ref}`);
    const defs = (target.schema.$defs ?? {}) as Record<string, JsonSchema>;
    const def = defs[match[1]!];
    if (!def) throw new Error(`${ctx.entry.fileName}: $ref to missing definition ${ref}`);
    name = defTypeName(target, match[1]!, def);
  }
  if (target !== ctx.entry) ctx.imports.set(name, stem(target));
  return name;
}

function jsDoc(schema: JsonSchema, indent: string): string {
  const lines: string[] = [];
  if (typeof schema.description === 'string') lines.push(...schema.description.split('\n'));
  if (schema.format) lines.push(`Format: ${String(schema.format)}.`);
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (lines.length === 0) return '';
  const body = lines.map((line) => `${indent} * ${line.replace(/\*\//g, '*\\/')}`.trimEnd()).join('\n');
  return `${indent}/**\n${body}\n${indent} */\n`;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

function literal(value: unknown): string {
  return JSON.stringify(value);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

export function pascal(text: string): string {
  return text.replace(/(^|[-_\s]+)(\w)/g, (_, __, c: string) => c.toUpperCase());
}
