// The gRPC binding's reading of a call: the grpc transport has decoded the request message with
// the method's input schema (a message that does not decode never gets here: the call ends
// INVALID_ARGUMENT); this checks the A2A version from the `a2a-version` metadata (service
// parameters travel as gRPC metadata) and calls the request handler's method, turning whatever
// it throws into the failure the binding answers with (errors.ts). Streams are the handler's
// AsyncIterable of StreamResponse objects, each written as one message; the stream ends when
// the handler's does.
import type { JsonObject, MessageShape } from '@bufbuild/protobuf';
import type {
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { RequestContext, StreamItem } from '../../transport/endpoint.js';
import { asA2aError } from '../handler/failures.js';
import type { A2aRequestHandler, StreamResponseJson } from '../handler/request-handler.js';
import { checkVersion } from '../handler/service-parameters.js';
import { carriedFailure } from './errors.js';

/** The metadata key of the A2A-Version service parameter (gRPC lowercases every key). */
const VERSION_KEY = 'a2a-version';

type Unary = (request: never, context: RequestContext) => Promise<JsonObject>;
type Streaming = (request: never, context: RequestContext) => AsyncIterable<StreamResponseJson>;

/** The handler's method for each unary method of A2AService, by its protobuf-es local name. */
export function unaryMethods(handler: A2aRequestHandler): ReadonlyMap<string, Unary> {
  const table: Record<string, Unary> = {
    sendMessage: (request: MessageShape<typeof SendMessageRequestSchema>, context) => handler.sendMessage(request, context),
    getTask: (request: MessageShape<typeof GetTaskRequestSchema>, context) => handler.getTask(request, context),
    listTasks: (request: MessageShape<typeof ListTasksRequestSchema>, context) => handler.listTasks(request, context),
    cancelTask: (request: MessageShape<typeof CancelTaskRequestSchema>, context) => handler.cancelTask(request, context),
    createTaskPushNotificationConfig: (request: MessageShape<typeof TaskPushNotificationConfigSchema>, context) =>
      handler.createTaskPushNotificationConfig(request, context),
    getTaskPushNotificationConfig: (request: MessageShape<typeof GetTaskPushNotificationConfigRequestSchema>, context) =>
      handler.getTaskPushNotificationConfig(request, context),
    listTaskPushNotificationConfigs: (request: MessageShape<typeof ListTaskPushNotificationConfigsRequestSchema>, context) =>
      handler.listTaskPushNotificationConfigs(request, context),
    deleteTaskPushNotificationConfig: (request: MessageShape<typeof DeleteTaskPushNotificationConfigRequestSchema>, context) =>
      handler.deleteTaskPushNotificationConfig(request, context),
    getExtendedAgentCard: (request: MessageShape<typeof GetExtendedAgentCardRequestSchema>, context) =>
      handler.getExtendedAgentCard(request, context),
  };
  return new Map(Object.entries(table));
}

/** The handler's method for each server-streaming method of A2AService. */
export function streamingMethods(handler: A2aRequestHandler): ReadonlyMap<string, Streaming> {
  const table: Record<string, Streaming> = {
    sendStreamingMessage: (request: MessageShape<typeof SendMessageRequestSchema>, context) =>
      handler.sendStreamingMessage(request, context),
    subscribeToTask: (request: MessageShape<typeof SubscribeToTaskRequestSchema>, context) =>
      handler.subscribeToTask(request, context),
  };
  return new Map(Object.entries(table));
}

/** One unary call: the version, then the handler; a refusal is the binding's failure. */
export async function callUnary(run: Unary, request: unknown, context: RequestContext): Promise<JsonObject> {
  try {
    checkVersion(versionOf(context));
    return await run(request as never, context);
  } catch (error) {
    throw carriedFailure(asA2aError(error));
  }
}

/**
 * One streaming call: the version and the handler's refusals before the first event end the
 * call with their status; a failure after it ends the stream with one.
 */
export function openStream(run: Streaming, request: unknown, context: RequestContext): AsyncIterable<StreamItem> {
  let events: AsyncIterable<StreamResponseJson>;
  try {
    checkVersion(versionOf(context));
    events = run(request as never, context);
  } catch (error) {
    throw carriedFailure(asA2aError(error));
  }
  return streamItems(events);
}

async function* streamItems(events: AsyncIterable<StreamResponseJson>): AsyncGenerator<StreamItem, void, undefined> {
  try {
    // No event is marked final: the stream ends when the handler's does (Endpoint.endsWithSource).
    for await (const result of events) yield { result, final: false };
  } catch (error) {
    throw carriedFailure(asA2aError(error));
  }
}

function versionOf(context: RequestContext): string | undefined {
  const value = context.params[VERSION_KEY];
  return typeof value === 'string' ? value : undefined;
}
