// protoc plugin: derives one JSON Schema (draft 2020-12) per A2A message from the
// A2A proto definitions. Each schema describes the message's ProtoJSON form, which
// is what A2A's JSON-RPC binding puts on the wire.
//
// Run by `buf generate` (see buf.gen.yaml) as a local plugin:
//   node --import tsx codegen/protoc-gen-a2a-jsonschema.ts
// It reads a CodeGeneratorRequest on stdin and writes a CodeGeneratorResponse to
// stdout (via @bufbuild/protoplugin's runNodeJs). Only files whose package is the
// A2A package (`lf.a2a.v1`, or the `package=` plugin option) produce output; every
// other file in the request is ignored. Output names are `<Message>.schema.json`,
// relative to the plugin's `out` directory.
//
// Mapping from protobuf to JSON Schema (ProtoJSON rules):
//   * property names are the fields' JSON names (lowerCamelCase by default);
//   * enums: the value name as a string, or its number (parsers accept both);
//   * 32-bit integers: integer within range; 64-bit integers: integer or decimal
//     string (ProtoJSON writes them as strings);
//   * float/double: number, or "NaN" / "Infinity" / "-Infinity";
//   * bytes: base64 string (standard or URL-safe alphabet);
//   * google.protobuf.Timestamp: RFC 3339 string (`format: date-time`);
//     Duration: "<seconds>s" string; Struct: object; Value: any JSON value;
//     ListValue: array; Empty: object; wrapper types: their scalar's schema;
//   * repeated: array; map: object whose additionalProperties are the value schema;
//   * message fields: `$ref` to the sibling `<Message>.schema.json`;
//   * fields annotated `(google.api.field_behavior) = REQUIRED` are listed in
//     `required`;
//   * each oneof group: at most one member present (`dependentSchemas`: when one
//     member is present, the other members' property schemas are `false`);
//   * unknown properties stay allowed (no `additionalProperties: false`), so newer
//     peers that add fields still validate; this also means the proto-name
//     spelling of a field (`context_id`), which ProtoJSON parsers accept too, is
//     not checked.
// Caveat on `required`: ProtoJSON writers omit implicit-presence fields holding
// their zero value (an empty string, 0, an empty list), so a REQUIRED scalar or
// list that is legitimately empty (for example `nextPageToken` on the last page of
// ListTasksResponse) is absent from default output. Writers whose output is
// validated against these schemas should serialize with `alwaysEmitImplicit: true`
// (protobuf-es) or the equivalent option of their ProtoJSON library.
//
// Output is deterministic: object keys are sorted, arrays follow declaration or
// number order, JSON is indented by two spaces and ends with a newline.

import { pathToFileURL } from 'node:url';
import {
  create,
  createFileRegistry,
  getOption,
  ScalarType,
  type DescEnum,
  type DescExtension,
  type DescField,
  type DescFile,
  type DescMessage,
  type FileRegistry,
} from '@bufbuild/protobuf';
import {
  CodeGeneratorResponseSchema,
  CodeGeneratorResponse_Feature,
  FileDescriptorSetSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
} from '@bufbuild/protobuf/wkt';
import { getComments, runNodeJs, type Plugin } from '@bufbuild/protoplugin';

export const PLUGIN_NAME = 'protoc-gen-a2a-jsonschema';
export const PLUGIN_VERSION = '1.0.0';
/** Package whose messages get schemas unless the `package=` option says otherwise. */
export const DEFAULT_PACKAGE = 'lf.a2a.v1';
/** Base URL of the schemas' `$id`s. */
export const ID_BASE = 'https://parley.dev/schemas/a2a/';

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const FIELD_BEHAVIOR_EXTENSION = 'google.api.field_behavior';
const FIELD_BEHAVIOR_REQUIRED = 2;

type Schema = { [key: string]: JsonLike };
type JsonLike = string | number | boolean | null | JsonLike[] | { [key: string]: JsonLike };

/** One generated file: its path relative to the output directory and its text. */
export interface GeneratedSchemaFile {
  name: string;
  content: string;
}

interface Options {
  packageName: string;
}

function parseOptions(parameter: string): Options {
  const options: Options = { packageName: DEFAULT_PACKAGE };
  for (const raw of parameter.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    const key = eq < 0 ? entry : entry.slice(0, eq);
    const value = eq < 0 ? '' : entry.slice(eq + 1);
    if (key === 'package' && value !== '') {
      options.packageName = value;
    } else {
      throw new Error(`unknown or malformed option "${entry}" (supported: package=<proto package>)`);
    }
  }
  return options;
}

/** Joins a proto comment into JSON-friendly prose: lines are unwrapped, blank lines kept as paragraph breaks. */
function commentText(comment: string | undefined): string | undefined {
  if (comment === undefined) return undefined;
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const line of comment.split('\n')) {
    const text = line.trim();
    if (text === '') {
      if (current.length > 0) paragraphs.push(current.join(' '));
      current = [];
    } else {
      current.push(text);
    }
  }
  if (current.length > 0) paragraphs.push(current.join(' '));
  const joined = paragraphs.join('\n\n');
  return joined === '' ? undefined : joined;
}

function describe(schema: Schema, desc: DescMessage | DescField | DescEnum): Schema {
  const text = commentText(getComments(desc).leading);
  if (text !== undefined) schema.description = text;
  return schema;
}

/** Name of a message or enum relative to its package, e.g. `Task` or `Outer.Inner`. */
function relativeName(desc: DescMessage | DescEnum): string {
  const prefix = desc.file.proto.package === '' ? '' : `${desc.file.proto.package}.`;
  return desc.typeName.startsWith(prefix) ? desc.typeName.slice(prefix.length) : desc.typeName;
}

export function schemaFileName(message: DescMessage): string {
  return `${relativeName(message)}.schema.json`;
}

const INT32 = { type: 'integer', minimum: -2147483648, maximum: 2147483647 } as const;
const UINT32 = { type: 'integer', minimum: 0, maximum: 4294967295 } as const;

function scalarSchema(scalar: ScalarType): Schema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64', pattern: '^[A-Za-z0-9+/_-]*={0,2}$' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { ...INT32 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { ...UINT32 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return {
        anyOf: [
          { type: 'integer', minimum: 0 },
          { type: 'string', pattern: '^[0-9]+$' },
        ],
      };
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] };
  }
}

/** ProtoJSON forms of the well-known types that have a special JSON mapping. */
function wellKnownSchema(message: DescMessage): Schema | undefined {
  switch (message.typeName) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case 'google.protobuf.Duration':
      return { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' };
    case 'google.protobuf.Struct':
      return { type: 'object' };
    case 'google.protobuf.Value':
      return {};
    case 'google.protobuf.ListValue':
      return { type: 'array' };
    case 'google.protobuf.Empty':
      return { type: 'object' };
    case 'google.protobuf.FieldMask':
      return { type: 'string' };
    case 'google.protobuf.Any':
      return { type: 'object', properties: { '@type': { type: 'string' } }, required: ['@type'] };
    case 'google.protobuf.DoubleValue':
    case 'google.protobuf.FloatValue':
    case 'google.protobuf.Int64Value':
    case 'google.protobuf.UInt64Value':
    case 'google.protobuf.Int32Value':
    case 'google.protobuf.UInt32Value':
    case 'google.protobuf.BoolValue':
    case 'google.protobuf.StringValue':
    case 'google.protobuf.BytesValue': {
      const value = message.fields.find((f) => f.name === 'value');
      if (value?.fieldKind !== 'scalar') return undefined;
      return scalarSchema(value.scalar);
    }
    default:
      return undefined;
  }
}

class MessageSchemaBuilder {
  readonly defs: Record<string, Schema> = {};

  constructor(private readonly packageName: string) {}

  private enumRef(desc: DescEnum): Schema {
    if (desc.typeName === 'google.protobuf.NullValue') return { type: 'null' };
    const key = relativeName(desc);
    if (!(key in this.defs)) {
      const values = [...desc.values].sort((a, b) => a.number - b.number);
      this.defs[key] = describe(
        {
          title: key,
          anyOf: [
            { type: 'string', enum: values.map((v) => v.name) },
            { type: 'integer', enum: values.map((v) => v.number) },
          ],
        },
        desc,
      );
    }
    return { $ref: `#/$defs/${key}` };
  }

  private messageRef(desc: DescMessage): Schema {
    const wkt = wellKnownSchema(desc);
    if (wkt !== undefined) return wkt;
    if (desc.file.proto.package !== this.packageName) {
      throw new Error(`${desc.typeName}: messages from other packages are not supported`);
    }
    return { $ref: schemaFileName(desc) };
  }

  private mapKeySchema(scalar: ScalarType): Schema | undefined {
    switch (scalar) {
      case ScalarType.STRING:
        return undefined;
      case ScalarType.BOOL:
        return { enum: ['true', 'false'] };
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return { pattern: '^[0-9]+$' };
      default:
        return { pattern: '^-?[0-9]+$' };
    }
  }

  fieldSchema(field: DescField): Schema {
    switch (field.fieldKind) {
      case 'scalar':
        return scalarSchema(field.scalar);
      case 'enum':
        return this.enumRef(field.enum);
      case 'message':
        return this.messageRef(field.message);
      case 'list': {
        const items =
          field.listKind === 'scalar'
            ? scalarSchema(field.scalar)
            : field.listKind === 'enum'
              ? this.enumRef(field.enum)
              : this.messageRef(field.message);
        return { type: 'array', items };
      }
      case 'map': {
        const values =
          field.mapKind === 'scalar'
            ? scalarSchema(field.scalar)
            : field.mapKind === 'enum'
              ? this.enumRef(field.enum)
              : this.messageRef(field.message);
        const schema: Schema = { type: 'object', additionalProperties: values };
        const keys = this.mapKeySchema(field.mapKey);
        if (keys !== undefined) schema.propertyNames = keys;
        return schema;
      }
    }
  }
}

function isRequired(field: DescField, fieldBehavior: DescExtension | undefined): boolean {
  if (fieldBehavior === undefined) return false;
  const behaviors = getOption(field, fieldBehavior) as unknown;
  return Array.isArray(behaviors) && behaviors.includes(FIELD_BEHAVIOR_REQUIRED);
}

function messageSchema(
  message: DescMessage,
  file: DescFile,
  packageName: string,
  fieldBehavior: DescExtension | undefined,
): Schema {
  const builder = new MessageSchemaBuilder(packageName);
  const name = relativeName(message);
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const fields = [...message.fields].sort((a, b) => a.number - b.number);
  for (const field of fields) {
    const property = describe(builder.fieldSchema(field), field);
    if (field.deprecated) property.deprecated = true;
    properties[field.jsonName] = property;
    if (isRequired(field, fieldBehavior)) required.push(field.jsonName);
  }
  // A oneof allows at most one member: whenever one member is present, the others
  // must be absent (`false` schemas). This form needs no `required`, so it also passes
  // ajv's strictRequired check.
  const oneofConstraints: Record<string, Schema> = {};
  for (const oneof of message.oneofs) {
    const members = oneof.fields.map((f) => f.jsonName);
    if (members.length < 2) continue;
    for (const member of members) {
      const others: Record<string, JsonLike> = {};
      for (const other of members) if (other !== member) others[other] = false;
      oneofConstraints[member] = {
        $comment: `oneof ${oneof.name}: at most one of ${members.join(', ')}`,
        properties: others,
      };
    }
  }
  const schema: Schema = {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `${ID_BASE}${schemaFileName(message)}`,
    $comment: `Generated by codegen/${PLUGIN_NAME}.ts from ${file.proto.name} (message ${message.typeName}). Do not edit; change the proto and regenerate.`,
    title: name,
    type: 'object',
    properties,
  };
  describe(schema, message);
  if (required.length > 0) schema.required = required;
  if (Object.keys(oneofConstraints).length > 0) schema.dependentSchemas = oneofConstraints;
  if (Object.keys(builder.defs).length > 0) schema.$defs = builder.defs;
  return schema;
}

/** JSON with recursively sorted object keys, two-space indentation and a trailing newline. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

function collectMessages(messages: readonly DescMessage[], out: DescMessage[]): DescMessage[] {
  for (const message of messages) {
    if (message.proto.options?.mapEntry === true) continue;
    out.push(message);
    collectMessages(message.nestedMessages, out);
  }
  return out;
}

/** Builds the schema files for every A2A message in the request's files to generate. */
export function generateSchemaFiles(request: CodeGeneratorRequest): GeneratedSchemaFile[] {
  const options = parseOptions(request.parameter);
  const registry: FileRegistry = createFileRegistry(create(FileDescriptorSetSchema, { file: request.protoFile }));
  const fieldBehavior = registry.getExtension(FIELD_BEHAVIOR_EXTENSION);
  const files: GeneratedSchemaFile[] = [];
  for (const fileName of [...request.fileToGenerate].sort()) {
    const file = registry.getFile(fileName);
    if (file === undefined) throw new Error(`file to generate ${fileName} is missing from the request`);
    if (file.proto.package !== options.packageName) continue;
    for (const message of collectMessages(file.messages, [])) {
      files.push({
        name: schemaFileName(message),
        content: stableJson(messageSchema(message, file, options.packageName, fieldBehavior)),
      });
    }
  }
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return files;
}

export const plugin: Plugin = {
  name: PLUGIN_NAME,
  version: `v${PLUGIN_VERSION}`,
  run(request: CodeGeneratorRequest): CodeGeneratorResponse {
    const files = generateSchemaFiles(request);
    return create(CodeGeneratorResponseSchema, {
      supportedFeatures: BigInt(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL),
      file: files.map((f) => ({ name: f.name, content: f.content })),
    });
  },
};

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  runNodeJs(plugin);
}
