// How the HTTP+JSON binding reads a request into the ProtoJSON object of the A2A request
// message, which the strict decoder (model/params.ts) then checks: a POST's body is the whole
// message (the proto's `body: "*"`), a GET's or DELETE's fields come from the query string, and
// the path's named parts (`{id}`, `{taskId}`, the tenant prefix) fill their fields in both. A
// query parameter is a field of the message by its JSON (or proto) name, as A2A says (section
// 11.5): a boolean is `true` or `false`, a number its decimal text, an enum its name (the short
// form `working` for TASK_STATE_WORKING too, as the specification's example writes it), a
// timestamp its RFC 3339 text; a field given twice, a message-typed field other than a timestamp,
// and a name the message does not have are refused, as ProtoJSON refuses unknown fields.
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { CREDENTIAL_QUERY_PARAMS } from '../../auth/credentials.js';
import type { JsonDecodeResult } from '../../core/off-thread-json.js';
import type { QueryParams } from '../../transport/endpoint.js';
import { A2aError, invalidParams } from '../errors/a2a-error.js';

/** The body of a POST as a JSON object: an empty body is `{}` (cancel and subscribe need none). */
export function bodyObject(text: string, decoded: JsonDecodeResult | null): Record<string, unknown> {
  let value: unknown;
  if (decoded) {
    if (decoded.kind === 'invalid_json')
      throw new A2aError('parseError', `the request body is not valid JSON: ${decoded.parserMessage}`);
    value = decoded.kind === 'value' ? decoded.value : undefined;
  } else if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new A2aError('parseError', `the request body is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (value === undefined) return {};
  if (!isObject(value)) throw invalidParams('', 'the request body must be a JSON object');
  return value;
}

/** The fields of a GET or DELETE, from its query string. */
export function queryObject(schema: DescMessage, params: QueryParams): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(params)) {
    if (CREDENTIAL_QUERY_PARAMS.includes(name)) continue;
    const at = `/${name}`;
    const field = schema.fields.find((candidate) => candidate.jsonName === name || candidate.name === name);
    if (!field) throw invalidParams(at, `unknown query parameter ${JSON.stringify(name)} of ${schema.name}`);
    json[field.jsonName] = queryValue(field, raw, at);
  }
  return json;
}

/** Refuses a query string on a route whose fields all come in the body. */
export function refuseQuery(params: QueryParams): void {
  for (const name of Object.keys(params)) {
    if (!CREDENTIAL_QUERY_PARAMS.includes(name))
      throw invalidParams(`/${name}`, 'this route takes its fields in the body, not in the query string');
  }
}

/**
 * Puts the path's named parts into the request object; a body or query that names the same
 * field with another value is refused rather than silently overridden.
 */
export function withPathFields(json: Record<string, unknown>, fields: Readonly<Record<string, string>>): Record<string, unknown> {
  for (const [name, raw] of Object.entries(fields)) {
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      throw invalidParams(`/${name}`, `the path holds ${JSON.stringify(raw)}, which is not valid percent-encoding`);
    }
    const given = json[name];
    if (given !== undefined && given !== null && given !== '' && given !== value)
      throw invalidParams(`/${name}`, `is ${JSON.stringify(given)} here but ${JSON.stringify(value)} in the path`);
    json[name] = value;
  }
  return json;
}

function queryValue(field: DescField, raw: string | readonly string[], at: string): unknown {
  if (field.fieldKind === 'list') {
    const items = (typeof raw === 'string' ? [raw] : raw).flatMap((item) => item.split(','));
    if (field.listKind === 'scalar') return items.map((item) => scalarValue(field.scalar === ScalarType.BOOL, item, at));
    if (field.listKind === 'enum') return items.map((item) => enumValue(field.enum, item));
    throw invalidParams(at, 'cannot be given in a query string (a list of messages)');
  }
  if (typeof raw !== 'string') throw invalidParams(at, 'is given more than once');
  switch (field.fieldKind) {
    case 'scalar':
      return scalarValue(field.scalar === ScalarType.BOOL, raw, at);
    case 'enum':
      return enumValue(field.enum, raw);
    case 'message':
      if (field.message.typeName === 'google.protobuf.Timestamp') return raw;
      throw invalidParams(at, `cannot be given in a query string (a ${field.message.name} object)`);
    default:
      throw invalidParams(at, 'cannot be given in a query string (a map)');
  }
}

/** A boolean's text as the boolean; anything else stays text (ProtoJSON reads numbers from text). */
function scalarValue(isBool: boolean, raw: string, at: string): unknown {
  if (!isBool) return raw;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalidParams(at, 'must be true or false');
}

/** An enum's name, or its short form (`working` for TASK_STATE_WORKING); an unknown one is left for the decoder to refuse. */
function enumValue(desc: DescEnum, raw: string): string {
  if (desc.values.some((value) => value.name === raw)) return raw;
  const short = desc.values.find((value) => value.localName.toLowerCase() === raw.toLowerCase().replace(/-/g, '_'));
  return short ? short.name : raw;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
