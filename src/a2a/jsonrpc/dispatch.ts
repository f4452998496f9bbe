// The JSON-RPC binding's reading of `POST /`: the body in, a JSON-RPC response (or a batch of
// them, or nothing) out. It checks in the order a JSON-RPC server must: media type (before the
// body is trusted), JSON (-32700), the request object (-32600), the method (-32601), the params
// (-32602), then the A2A version (-32009); only then does the request handler's method run. A
// streaming method alone in its body is answered with server-sent events (./stream.ts).
import type { DescMessage, JsonObject, MessageShape } from '@bufbuild/protobuf';
import {
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
import type { PreEncoded } from '../../core/json/encoded.js';
import type { RequestContext, SpanHandle } from '../../transport/endpoint.js';
import type { RawHttpBody } from '../../transport/http/raw-body.js';
import { A2aError } from '../errors/a2a-error.js';
import { asA2aError } from '../handler/failures.js';
import type { A2aRequestHandler } from '../handler/request-handler.js';
import { checkMediaType, checkVersion } from '../handler/service-parameters.js';
import { decodeParams } from '../model/params.js';
import { StreamAnswer } from '../../transport/stream-answer.js';
import { encodeAnswerWithin, encodeBatchWithin } from './answer-limit.js';
import {
  encodeRpc,
  NO_RESPONSE,
  parseRpcBody,
  parsedRpcBody,
  readRpcCall,
  rpcFailure,
  rpcResult,
  usableId,
  type RpcResponse,
} from './envelope.js';
import { describeServedAnswer, describeServedCall, describeUnreadCall } from './spans.js';
import { openRpcStream } from './stream.js';

export interface JsonRpcOptions {
  /** The most requests one batch may hold; default 100. */
  readonly maxBatchRequests?: number;
  /** The transport's `max_response_bytes`: a larger result is answered as -32603. Default: no limit of the binding's own. */
  readonly maxResponseBytes?: number;
}

/** Batch size when the options set none: JSON-RPC sets no bound, and an unbounded batch runs without end. */
const DEFAULT_MAX_BATCH_REQUESTS = 100;

interface Method {
  readonly schema: DescMessage;
  /** A unary method: its result. */
  readonly run?: (request: never, context: RequestContext) => Promise<unknown>;
  /**
   * A streaming method: its events, answered as server-sent events (jsonrpc/stream.ts);
   * `lastEventId` is the request's `Last-Event-ID` header, where a subscription resumes.
   */
  readonly stream?: (request: never, context: RequestContext, lastEventId: string | undefined) => AsyncIterable<JsonObject>;
}

export class JsonRpcDispatcher {
  private readonly methods: ReadonlyMap<string, Method>;
  private readonly maxBatchRequests: number;
  private readonly maxResponseBytes: number;

  constructor(handler: A2aRequestHandler, options: JsonRpcOptions = {}) {
    this.maxBatchRequests = options.maxBatchRequests ?? DEFAULT_MAX_BATCH_REQUESTS;
    this.maxResponseBytes = options.maxResponseBytes ?? Number.POSITIVE_INFINITY;
    // Made once: a call allocates no closure of its own on its way to the handler.
    const method = <D extends DescMessage>(
      schema: D,
      run: (request: MessageShape<D>, context: RequestContext) => Promise<unknown>,
    ): Method => ({
      schema,
      run: run as Method['run'],
    });
    const stream = <D extends DescMessage>(
      schema: D,
      open: (request: MessageShape<D>, context: RequestContext, lastEventId: string | undefined) => AsyncIterable<JsonObject>,
    ): Method => ({
      schema,
      stream: open as Method['stream'],
    });
    this.methods = new Map<string, Method>([
      ['SendMessage', method(SendMessageRequestSchema, (request, context) => handler.sendMessage(request, context))],
      ['GetTask', method(GetTaskRequestSchema, (request, context) => handler.getTask(request, context))],
      ['ListTasks', method(ListTasksRequestSchema, (request, context) => handler.listTasks(request, context))],
      ['CancelTask', method(CancelTaskRequestSchema, (request, context) => handler.cancelTask(request, context))],
      [
        'SendStreamingMessage',
        stream(SendMessageRequestSchema, (request, context) => handler.sendStreamingMessage(request, context)),
      ],
      [
        'SubscribeToTask',
        stream(SubscribeToTaskRequestSchema, (request, context, lastEventId) =>
          handler.subscribeToTask(request, context, lastEventId),
        ),
      ],
      [
        'CreateTaskPushNotificationConfig',
        method(TaskPushNotificationConfigSchema, (request, context) =>
          handler.createTaskPushNotificationConfig(request, context),
        ),
      ],
      [
        'GetTaskPushNotificationConfig',
        method(GetTaskPushNotificationConfigRequestSchema, (request, context) =>
          handler.getTaskPushNotificationConfig(request, context),
        ),
      ],
      [
        'ListTaskPushNotificationConfigs',
        method(ListTaskPushNotificationConfigsRequestSchema, (request, context) =>
          handler.listTaskPushNotificationConfigs(request, context),
        ),
      ],
      [
        'DeleteTaskPushNotificationConfig',
        method(DeleteTaskPushNotificationConfigRequestSchema, (request, context) =>
          handler.deleteTaskPushNotificationConfig(request, context),
        ),
      ],
      [
        'GetExtendedAgentCard',
        method(GetExtendedAgentCardRequestSchema, (request, context) => handler.getExtendedAgentCard(request, context)),
      ],
    ]);
  }

  /**
   * Answers one `POST /`: a response, a batch of them, or nothing (notifications only). When
   * its span records, a single call names it after its method (a batch leaves it as it is).
   */
  async handle(body: RawHttpBody, context: RequestContext): Promise<PreEncoded | StreamAnswer> {
    const span = context.span ?? null;
    let parsed: unknown;
    try {
      checkMediaType(body.header('content-type'));
      parsed = body.decoded ? parsedRpcBody(body.decoded) : parseRpcBody(body.text);
    } catch (error) {
      return encodeRpc(answered(span, rpcFailure(null, asA2aError(error))));
    }
    const version = body.header('a2a-version');
    if (!Array.isArray(parsed)) {
      const answer = await this.one(parsed, version, context, span, true, body.header('last-event-id'));
      if (!answer) return NO_RESPONSE;
      if (answer instanceof StreamAnswer) return answer;
      const sent = encodeAnswerWithin(answer, this.maxResponseBytes);
      if (sent.value !== answer) answered(span, sent.value as RpcResponse);
      return sent;
    }
    if (parsed.length === 0)
      return encodeRpc(
        answered(span, rpcFailure(null, new A2aError('invalidRequest', 'a batch must hold at least one request'))),
      );
    // Refused before any member runs: a bound on the work one body can ask for.
    if (parsed.length > this.maxBatchRequests) {
      const message = `a batch of ${parsed.length} requests is over this agent's limit: at most ${this.maxBatchRequests}`;
      const limit = { limit: String(this.maxBatchRequests) };
      return encodeRpc(answered(span, rpcFailure(null, new A2aError('invalidRequest', message, limit))));
    }
    const answers = await Promise.all(parsed.map((item) => this.one(item, version, context, null, false)));
    // A batch member is never a stream (one() refuses it there).
    const sent = answers.filter((answer): answer is RpcResponse => answer !== undefined && !(answer instanceof StreamAnswer));
    return sent.length > 0 ? encodeBatchWithin(sent, this.maxResponseBytes) : NO_RESPONSE;
  }

  /**
   * One request object; undefined for a notification, which is run but not answered. `span`:
   * the request's span when it records and the request holds this call alone; `single`: the
   * body is this one call, so a streaming method may answer with a stream.
   */
  private async one(
    value: unknown,
    version: string | undefined,
    context: RequestContext,
    span: SpanHandle | null,
    single: boolean,
    lastEventId?: string,
  ): Promise<RpcResponse | StreamAnswer | undefined> {
    let notification = false;
    let id = usableId(value);
    let read = false;
    try {
      const call = readRpcCall(value);
      read = true;
      notification = call.notification;
      id = call.id;
      const method = this.methods.get(call.method);
      if (span) describeServedCall(span, call, method !== undefined);
      if (!method) throw new A2aError('methodNotFound', `unknown method ${JSON.stringify(call.method)}`);
      const request = decodeParams(method.schema, call.params);
      checkVersion(version);
      if (method.run) {
        const result = await method.run(request as never, context);
        return notification ? undefined : rpcResult(id, result);
      }
      // A stream is one call's whole answer, to a caller that waits for it.
      if (!single || notification)
        throw new A2aError('invalidRequest', `${call.method} streams its answer: send it alone, with an id, not in a batch`);
      return await openRpcStream(id, method.stream!(request as never, context, lastEventId));
    } catch (error) {
      if (span && !read) describeUnreadCall(span, id);
      return notification ? undefined : answered(span, rpcFailure(id, asA2aError(error)));
    }
  }
}

/** `response`, recorded on the span when there is one. */
function answered(span: SpanHandle | null, response: RpcResponse): RpcResponse {
  if (span) describeServedAnswer(span, response);
  return response;
}
