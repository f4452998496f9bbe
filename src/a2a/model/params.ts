// Reads a JSON-RPC `params` object into an A2A request message with ProtoJSON (strict: unknown
// fields, wrong types and unknown enum names are refused). A walk over the message descriptor
// runs first so that a refusal names the field by its JSON pointer, which the -32602 error
// carries; fromJson then applies the rules the walk leaves to it.
import { fromJson, ScalarType, type DescField, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { invalidParams } from '../errors/a2a-error.js';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export function decodeParams<Desc extends DescMessage>(schema: Desc, params: unknown): MessageShape<Desc> {
  const json = params === undefined ? {} : params;
  if (!isObject(json)) throw invalidParams('', 'params must be an object');
  check(schema, json, '');
  try {
    return fromJson(schema, json as JsonValue);
  } catch (error) {
    throw invalidParams('', error instanceof Error ? error.message : String(error));
  }
}

/** Checks the members of `json` against the message `desc`; the first problem is thrown. */
function check(desc: DescMessage, json: Record<string, unknown>, pointer: string): void {
  if (desc.typeName.startsWith('google.protobuf.')) return;
  const oneofs = new Map<string, string>();
  for (const key of Object.keys(json)) {
    const at = `${pointer}/${pointerSegment(key)}`;
    const field = fieldFor(desc, key);
    if (!field) throw invalidParams(at, `unknown field ${JSON.stringify(key)} in ${desc.name}`);
    const value = json[key];
    if (value === null) continue;
    if (field.oneof) {
      const other = oneofs.get(field.oneof.name);
      if (other !== undefined)
        throw invalidParams(at, `only one of ${field.oneof.fields.map((f) => f.jsonName).join(', ')} may be set (${other} is)`);
      oneofs.set(field.oneof.name, key);
    }
    checkValue(field, value, at);
  }
}

function checkValue(field: DescField, value: unknown, at: string): void {
  switch (field.fieldKind) {
    case 'scalar':
      checkScalar(field.scalar, value, at);
      return;
    case 'enum':
      checkEnum(field.enum.values, value, at);
      return;
    case 'message':
      checkMessage(field.message, value, at);
      return;
    case 'list': {
      if (!Array.isArray(value)) throw invalidParams(at, 'must be an array');
      value.forEach((item, index) => {
        const itemAt = `${at}/${index}`;
        if (field.listKind === 'scalar') checkScalar(field.scalar, item, itemAt);
        else if (field.listKind === 'enum') checkEnum(field.enum.values, item, itemAt);
        else checkMessage(field.message, item, itemAt);
      });
      return;
    }
    case 'map': {
      if (!isObject(value)) throw invalidParams(at, 'must be an object');
      for (const [key, item] of Object.entries(value)) {
        const itemAt = `${at}/${pointerSegment(key)}`;
        if (field.mapKind === 'scalar') checkScalar(field.scalar, item, itemAt);
        else if (field.mapKind === 'enum') checkEnum(field.enum.values, item, itemAt);
        else checkMessage(field.message, item, itemAt);
      }
    }
  }
}

function checkMessage(desc: DescMessage, value: unknown, at: string): void {
  // Well-known types have JSON forms of their own (a Value is any JSON, a Timestamp a string).
  if (desc.typeName.startsWith('google.protobuf.')) {
    if (desc.typeName === 'google.protobuf.Struct' && !isObject(value)) throw invalidParams(at, 'must be an object');
    if (desc.typeName === 'google.protobuf.Timestamp' && typeof value !== 'string')
      throw invalidParams(at, 'must be an RFC 3339 timestamp string');
    return;
  }
  if (!isObject(value)) throw invalidParams(at, `must be an object (${desc.name})`);
  check(desc, value, at);
}

function checkEnum(values: readonly { name: string; number: number }[], value: unknown, at: string): void {
  if (typeof value === 'string' && values.some((item) => item.name === value)) return;
  if (typeof value === 'number' && values.some((item) => item.number === value)) return;
  throw invalidParams(at, `must be one of ${values.map((item) => item.name).join(', ')}`);
}

function checkScalar(type: ScalarType, value: unknown, at: string): void {
  switch (type) {
    case ScalarType.STRING:
      if (typeof value !== 'string') throw invalidParams(at, 'must be a string');
      return;
    case ScalarType.BOOL:
      if (typeof value !== 'boolean') throw invalidParams(at, 'must be true or false');
      return;
    case ScalarType.BYTES:
      if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw invalidParams(at, 'must be base64 text');
      return;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32: {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isInteger(number) || number < INT32_MIN || number > INT32_MAX) {
        throw invalidParams(at, 'must be a 32-bit integer');
      }
      return;
    }
    default:
      if (typeof value !== 'number' && typeof value !== 'string') throw invalidParams(at, 'must be a number');
  }
}

function fieldFor(desc: DescMessage, key: string): DescField | undefined {
  return desc.fields.find((field) => field.jsonName === key || field.name === key);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key as a JSON pointer segment. */
function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
