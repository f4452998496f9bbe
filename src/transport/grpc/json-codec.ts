// The request and response envelopes as JSON text, for every client that sends JSON
// (`application/grpc+json`, and pass-through JSON under plain `application/grpc`). The text is
// parsed once with JSON.parse, as the http transport parses a body, and answers are written
// around the text the dispatcher already encoded: a payload never becomes a tree of
// google.protobuf.Value messages, which for a list of small numbers costs a hundred times the
// payload's size in memory and most of the time of the call.
//
// Field names and the rules for them are those of ProtoJSON for the envelope messages, so a
// ProtoJSON client (connect's) reads and writes exactly these: `id`, `method`, `path` and
// `idempotency_key` are strings (null reads as absent), `params` an object, `data` any JSON; a
// member of the wrong type, or text that is not a JSON object, is INVALID_ARGUMENT. Answers
// list their members in field-number order.
import type { Metadata } from '@grpc/grpc-js';
import { normalizeJson } from '../../core/json/normalize.js';
import { decodeJsonOffThread } from '../../core/off-thread-json.js';
import { utf8InTurns } from '../../core/utf8-in-turns.js';
import type { SignalSource } from '../endpoint.js';
import { type DecodedRequest, type EnvelopeFields, inboundFromMetadata } from './codec.js';
import { CallStatus, GrpcStatus } from './errors.js';
import type { EnvelopeCodec } from './message-encoding.js';

const STRING_FIELDS = ['id', 'method', 'path', 'idempotency_key'] as const;

const invalid = (message: string) => new CallStatus(GrpcStatus.INVALID_ARGUMENT, message);

const answerText = (requestId: string, ok: boolean, member: string, final: boolean): string =>
  `{"id":${JSON.stringify(requestId)},"ok":${ok},${member},"final":${final}}`;

const answer = (requestId: string, ok: boolean, member: string, final: boolean): Buffer =>
  Buffer.from(answerText(requestId, ok, member, final), 'utf8');

const notJson = (parserMessage: string) => invalid(`the message is not JSON: ${parserMessage}`);

export const jsonEnvelopes: EnvelopeCodec = {
  contentType: 'application/grpc+json',
  decode(message, metadata, abort) {
    let envelope: unknown;
    try {
      envelope = JSON.parse(message.toString('utf8'));
    } catch (error) {
      throw notJson(error instanceof Error ? error.message : String(error));
    }
    return fromEnvelope(envelope, metadata, abort);
  },
  // The text is decoded and parsed on a worker thread (../../core/off-thread-json.ts).
  async decodeLarge(message, metadata, abort) {
    const decoded = await decodeJsonOffThread(message, { checkDepth: false });
    if (decoded.kind === 'invalid_json') throw notJson(decoded.parserMessage);
    return fromEnvelope(decoded.kind === 'value' ? decoded.value : undefined, metadata, abort);
  },
  success: (requestId, encoded) => answer(requestId, true, `"result":${encoded.text}`, true),
  successLarge: (requestId, encoded) => utf8InTurns(answerText(requestId, true, `"result":${encoded.text}`, true)),
  text: (requestId, html) => answer(requestId, true, `"result":${JSON.stringify(html)}`, true),
  event: (requestId, encoded, _value, final) => answer(requestId, true, `"result":${encoded.text}`, final),
  failure: (requestId, error) => answer(requestId, false, `"error":${JSON.stringify(normalizeJson(error))}`, true),
};

/** The request envelope read from its parsed JSON. */
function fromEnvelope(envelope: unknown, metadata: Metadata, abort: SignalSource): DecodedRequest {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw invalid('the message is not a JSON object');
  }
  const members = envelope as Record<string, unknown>;
  for (const name of STRING_FIELDS) {
    const value = members[name];
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw invalid(`envelope member ${name} is not a string`);
  }
  const params = members.params;
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    throw invalid('envelope member params is not an object');
  }
  const fields: EnvelopeFields = {
    id: (members.id as string | null | undefined) ?? undefined,
    method: (members.method as string | null | undefined) ?? undefined,
    path: (members.path as string | null | undefined) ?? undefined,
    params: (params as Record<string, unknown> | null | undefined) ?? undefined,
    idempotencyKey: (members.idempotency_key as string | null | undefined) ?? undefined,
  };
  return inboundFromMetadata(fields, members.data, metadata, abort);
}
