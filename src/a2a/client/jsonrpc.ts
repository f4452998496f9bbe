// The JSON-RPC binding of the outbound client: every method is a JSON-RPC 2.0 request POSTed
// to the interface URL with `A2A-Version: 1.0`; streams are the same POST answered with
// server-sent events, each frame a JSON-RPC response whose `result` is a StreamResponse.
import { fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { CallOptions, OperationSpec } from '../../../generated/operations/spec.js';
import {
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskSchema,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { TransportRemoteError } from '../../transport/errors.js';
import type { Transport } from '../../transport/transport.js';
import { A2A_PROTOCOL_VERSION } from '../card/agent-card.js';
import { A2A_CALL_SPANS } from '../jsonrpc/spans.js';
import type { A2aBindingClient } from './binding.js';
import { readEventStream } from './event-stream.js';
import { invalidResponse, reasonIn, remoteError } from './remote-errors.js';

let nextRpcId = 1;

export class JsonRpcClient implements A2aBindingClient {
  readonly binding = 'JSONRPC' as const;
  private readonly spec: OperationSpec;

  /** `transport` is an http transport on the interface's origin. */
  constructor(
    private readonly transport: Transport,
    readonly url: string,
  ) {
    this.spec = { ...(agentOperations.a2aJsonRpc as OperationSpec), path: new URL(url).pathname || '/' };
  }

  async sendMessage(request: SendMessageRequest, options?: CallOptions) {
    return this.call('SendMessage', SendMessageRequestSchema, request, SendMessageResponseSchema, options);
  }

  getTask(request: GetTaskRequest, options?: CallOptions) {
    return this.call('GetTask', GetTaskRequestSchema, request, TaskSchema, options);
  }

  listTasks(request: ListTasksRequest, options?: CallOptions) {
    return this.call('ListTasks', ListTasksRequestSchema, request, ListTasksResponseSchema, options);
  }

  cancelTask(request: CancelTaskRequest, options?: CallOptions) {
    return this.call('CancelTask', CancelTaskRequestSchema, request, TaskSchema, options);
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream('SendStreamingMessage', toJson(SendMessageRequestSchema, request), options);
  }

  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream('SubscribeToTask', toJson(SubscribeToTaskRequestSchema, request), options);
  }

  close(): Promise<void> {
    return this.transport.stop();
  }

  private async call<I extends DescMessage, O extends DescMessage>(
    method: string,
    input: I,
    request: MessageShape<I>,
    output: O,
    options?: CallOptions,
  ): Promise<MessageShape<O>> {
    const id = nextRpcId++;
    const headers = { ...options?.headers, 'a2a-version': A2A_PROTOCOL_VERSION };
    const answer = await this.transport.unary(
      this.spec,
      { jsonrpc: '2.0', id, method, params: toJson(input, request) },
      { ...options, headers, spans: A2A_CALL_SPANS },
    );
    return decode(method, output, resultOf(method, answer, id));
  }

  private async *stream(method: string, params: JsonValue, options?: CallOptions): AsyncGenerator<StreamResponse> {
    const id = nextRpcId++;
    const frames = readEventStream(
      this.transport,
      {
        url: this.url,
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        headers: { ...options?.headers, 'a2a-version': A2A_PROTOCOL_VERSION },
        signal: options?.signal,
      },
      // JSON-RPC errors come with HTTP 200; another status is the HTTP layer's (credentials, a proxy).
      (status, text) =>
        new TransportRemoteError(`${method} answered HTTP ${status}: ${text.slice(0, 200)}`, {
          statusCode: status,
          retryable: false,
        }),
    );
    for await (const frame of frames) yield decode(method, StreamResponseSchema, resultOf(method, frame, id));
  }
}

/** The `result` of a JSON-RPC response; its `error` as an A2aClientError. */
function resultOf(method: string, answer: unknown, id: number): unknown {
  const response = answer as Record<string, unknown> | null;
  if (!response || typeof response !== 'object' || response.jsonrpc !== '2.0') {
    throw invalidResponse(method, 'something that is not a JSON-RPC 2.0 response');
  }
  const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  if (error) {
    const code = typeof error.code === 'number' ? error.code : undefined;
    const data = error.data;
    const reason = reasonIn(data);
    throw remoteError({
      method,
      message: String(error.message ?? ''),
      rpcCode: code,
      reason,
      wire: `JSON-RPC ${code ?? '?'}`,
      data,
    });
  }
  if (response.id !== id) throw invalidResponse(method, `with id ${JSON.stringify(response.id)}, not ${id}`);
  return response.result;
}

export function decode<O extends DescMessage>(method: string, schema: O, value: unknown): MessageShape<O> {
  try {
    return fromJson(schema, value as JsonValue, { ignoreUnknownFields: true });
  } catch (error) {
    throw invalidResponse(method, `something that is not a ${schema.name}: ${(error as Error).message}`);
  }
}
