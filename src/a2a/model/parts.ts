// Parts across the A2A boundary. A2A has four kinds of content (text, raw bytes, a URL, JSON
// data); native parts are a `type` label with any `content`. Text is text both ways; data is
// `data`; bytes and URLs are a native `file` part (`{bytes}` in base64 or `{uri}`, with
// `media_type` and `name`). Any other native type (`tool_call`, `flow_state`, an application's
// own) goes out as A2A data tagged `svcPartType` in the part's metadata, and comes back as the
// same native part.
import { create, fromJson, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { Part as NativePart } from '../../../generated/types/index.js';
import { PartSchema, type Part } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { invalidParams } from '../errors/a2a-error.js';

/** The metadata key that carries a native part type with no A2A twin. */
const PART_TYPE_KEY = 'svcPartType';

/** The content of a native `file` part. */
interface FileContent {
  /** Base64 of the bytes, for inline content. */
  bytes?: string;
  /** Where the content can be fetched, for linked content. */
  uri?: string;
  media_type?: string | null;
  name?: string | null;
}

/** An A2A part as a native one. `pointer` locates it in the request, for errors. */
export function partFromA2a(part: Part, pointer: string): NativePart {
  const native = nativeFor(part, pointer);
  const extra = native as unknown as Record<string, unknown>;
  if (part.metadata && Object.keys(part.metadata).length > 0) extra.metadata = part.metadata;
  if (part.content.case === 'text' || part.content.case === 'data') {
    if (part.mediaType) extra.media_type = part.mediaType;
    if (part.filename) extra.filename = part.filename;
  }
  return native;
}

function nativeFor(part: Part, pointer: string): NativePart {
  switch (part.content.case) {
    case 'text':
      return { type: 'text', content: part.content.value };
    case 'data': {
      const value = toJson(ValueSchema, part.content.value) as JsonValue;
      const tagged = part.metadata?.[PART_TYPE_KEY];
      if (typeof tagged === 'string' && tagged !== '') {
        const { [PART_TYPE_KEY]: _tag, ...rest } = part.metadata!;
        part.metadata = rest;
        return { type: tagged, content: value };
      }
      return { type: 'data', content: value };
    }
    case 'raw':
      return { type: 'file', content: fileContent({ bytes: Buffer.from(part.content.value).toString('base64') }, part) };
    case 'url':
      return { type: 'file', content: fileContent({ uri: part.content.value }, part) };
    default:
      throw invalidParams(pointer, 'a part needs content: one of text, raw, url or data');
  }
}

function fileContent(content: FileContent, part: Part): FileContent {
  if (part.mediaType) content.media_type = part.mediaType;
  if (part.filename) content.name = part.filename;
  return content;
}

/** A native part as an A2A one. */
export function partToA2a(part: NativePart): Part {
  const extra = part as unknown as Record<string, unknown>;
  const metadata = isObject(extra.metadata) ? { ...(extra.metadata as JsonObject) } : undefined;
  const mediaType = typeof extra.media_type === 'string' ? extra.media_type : '';
  const filename = typeof extra.filename === 'string' ? extra.filename : '';
  if (part.type === 'text' && typeof part.content === 'string') {
    return create(PartSchema, { content: { case: 'text', value: part.content }, metadata, mediaType, filename });
  }
  if (part.type === 'file' && isObject(part.content)) {
    const file = part.content as FileContent;
    const common = { metadata, mediaType: file.media_type ?? mediaType, filename: file.name ?? filename };
    if (typeof file.bytes === 'string') {
      return create(PartSchema, { content: { case: 'raw', value: Buffer.from(file.bytes, 'base64') }, ...common });
    }
    if (typeof file.uri === 'string') return create(PartSchema, { content: { case: 'url', value: file.uri }, ...common });
  }
  const value = fromJson(ValueSchema, (part.content ?? null) as JsonValue);
  if (part.type === 'data') return create(PartSchema, { content: { case: 'data', value }, metadata, mediaType, filename });
  return create(PartSchema, {
    content: { case: 'data', value },
    metadata: { ...metadata, [PART_TYPE_KEY]: part.type },
    mediaType,
    filename,
  });
}

/**
 * partToA2a in ProtoJSON. A text part, the one on nearly every answer, is written directly, as
 * ProtoJSON writes it (fields at their defaults left out); any other goes through protobuf-es.
 */
export function partToA2aJson(part: NativePart): JsonObject {
  if (part.type !== 'text' || typeof part.content !== 'string') return toJson(PartSchema, partToA2a(part)) as JsonObject;
  const extra = part as unknown as Record<string, unknown>;
  const json: JsonObject = { text: part.content };
  if (isObject(extra.metadata)) json.metadata = { ...(extra.metadata as JsonObject) };
  if (typeof extra.filename === 'string' && extra.filename !== '') json.filename = extra.filename;
  if (typeof extra.media_type === 'string' && extra.media_type !== '') json.mediaType = extra.media_type;
  return json;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
