// Messages across the A2A boundary. Roles: native `user` and `agent` are A2A's two roles;
// `assistant` travels as ROLE_AGENT and `system` as ROLE_USER, each tagged `svcRole` in the
// message metadata so a parley peer gets the original back. Parts translate one by one
// (parts.ts); A2A's message id is the native id.
import { create, type JsonObject } from '@bufbuild/protobuf';
import type { Message as NativeMessage, MessageRole } from '../../../generated/types/index.js';
import { MessageSchema, Role, type Message } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { newId } from '../../core/ids.js';
import { nowIso } from '../../core/clock.js';
import { partFromA2a, partToA2a, partToA2aJson } from './parts.js';

/** The metadata key that keeps a native role A2A has no twin for. */
const ROLE_KEY = 'svcRole';

/** An A2A message as a native one; `pointer` locates it in the request, for errors. */
export function messageFromA2a(message: Message, pointer: string, now = nowIso()): NativeMessage {
  const metadata = message.metadata ? { ...message.metadata } : undefined;
  const tagged = metadata?.[ROLE_KEY];
  if (metadata && ROLE_KEY in metadata) delete metadata[ROLE_KEY];
  let role: MessageRole = message.role === Role.AGENT ? 'agent' : 'user';
  if (tagged === 'assistant' && role === 'agent') role = 'assistant';
  if (tagged === 'system' && role === 'user') role = 'system';
  const native: NativeMessage = {
    id: message.messageId || newId(),
    role,
    parts: message.parts.map((part, index) => partFromA2a(part, `${pointer}/parts/${index}`)),
    timestamp: now,
  };
  if (metadata && Object.keys(metadata).length > 0) (native as unknown as Record<string, unknown>).metadata = metadata;
  return native;
}

/** A native message as an A2A one, placed in a task and context when they are known. */
export function messageToA2a(message: NativeMessage, taskId: string, contextId: string): Message {
  return create(MessageSchema, {
    messageId: message.id ?? newId(),
    role: isUserSide(message) ? Role.USER : Role.AGENT,
    parts: message.parts.map(partToA2a),
    taskId,
    contextId,
    metadata: a2aMetadata(message),
  });
}

/**
 * messageToA2a in ProtoJSON, written directly (every task answer holds messages, and building
 * protobuf-es messages only to write them out again cost more than the rest of the answer).
 * Fields in the proto's order, those at their defaults left out, as ProtoJSON does.
 */
export function messageToA2aJson(message: NativeMessage, taskId: string, contextId: string): JsonObject {
  const json: JsonObject = {};
  const id = message.id ?? newId();
  if (id) json.messageId = id;
  if (contextId) json.contextId = contextId;
  if (taskId) json.taskId = taskId;
  json.role = isUserSide(message) ? 'ROLE_USER' : 'ROLE_AGENT';
  if (message.parts.length > 0) json.parts = message.parts.map(partToA2aJson);
  const metadata = a2aMetadata(message);
  if (metadata) json.metadata = metadata;
  return json;
}

function isUserSide(message: NativeMessage): boolean {
  return message.role === 'user' || message.role === 'system';
}

/** The message's metadata as A2A carries it: a copy, with the native role when A2A has no twin. */
function a2aMetadata(message: NativeMessage): JsonObject | undefined {
  const extra = message as unknown as Record<string, unknown>;
  let metadata = isObject(extra.metadata) ? { ...(extra.metadata as JsonObject) } : undefined;
  if (message.role === 'assistant' || message.role === 'system') metadata = { ...metadata, [ROLE_KEY]: message.role };
  return metadata;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
