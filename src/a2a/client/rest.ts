// The HTTP+JSON (REST) binding of the outbound client: A2A's routes under the interface URL
// (`POST /message:send`, `GET /tasks/{id}`, `GET /tasks`, `POST /tasks/{id}:cancel`, the streams
// `POST /message:stream` and `POST /tasks/{id}:subscribe` as server-sent events of bare
// StreamResponses), ProtoJSON bodies, GET fields as camelCase query parameters, a tenant as the
// first path segment. Errors are AIP-193 bodies (`{error: {code, status, message, details}}`)
// whose ErrorInfo names the A2A error; one in the middle of a stream is an `event: error`
// frame with the same body.
import { toJson, type JsonObject } from '@bufbuild/protobuf';
import type { CallOptions, HttpMethod, OperationSpec } from '../../../generated/operations/spec.js';
import {
  CancelTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
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
import type { A2aBindingClient } from './binding.js';
import { readEventStream } from './event-stream.js';
import { decode } from './jsonrpc.js';
import { reasonIn, remoteError } from './remote-errors.js';

export class RestClient implements A2aBindingClient {
  readonly binding = 'HTTP+JSON' as const;
  /** The interface URL's path, without a trailing slash; routes go under it. */
  private readonly base: string;

  /** `transport` is an http transport on the interface's origin. */
  constructor(
    private readonly transport: Transport,
    readonly url: string,
  ) {
    this.base = new URL(url).pathname.replace(/\/$/, '');
  }

  async sendMessage(request: SendMessageRequest, options?: CallOptions) {
    const body = toJson(SendMessageRequestSchema, request) as JsonObject;
    const answer = await this.call('SendMessage', 'POST', this.route(request.tenant, '/message:send'), body, options);
    return decode('SendMessage', SendMessageResponseSchema, answer);
  }

  async getTask(request: GetTaskRequest, options?: CallOptions) {
    const params: Record<string, string> = {};
    if (request.historyLength !== undefined) params.historyLength = String(request.historyLength);
    const answer = await this.call('GetTask', 'GET', this.route(request.tenant, `/tasks/${segment(request.id)}`), null, {
      ...options,
      params,
    });
    return decode('GetTask', TaskSchema, answer);
  }

  async listTasks(request: ListTasksRequest, options?: CallOptions) {
    const { tenant: _tenant, ...fields } = toJson(ListTasksRequestSchema, request) as JsonObject;
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(fields)) params[key] = String(value);
    const answer = await this.call('ListTasks', 'GET', this.route(request.tenant, '/tasks'), null, { ...options, params });
    return decode('ListTasks', ListTasksResponseSchema, answer);
  }

  async cancelTask(request: CancelTaskRequest, options?: CallOptions) {
    const { id: _id, tenant: _tenant, ...body } = toJson(CancelTaskRequestSchema, request) as JsonObject;
    const answer = await this.call(
      'CancelTask',
      'POST',
      this.route(request.tenant, `/tasks/${segment(request.id)}:cancel`),
      body,
      {
        ...options,
      },
    );
    return decode('CancelTask', TaskSchema, answer);
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    const body = JSON.stringify(toJson(SendMessageRequestSchema, request));
    return this.stream('SendStreamingMessage', this.route(request.tenant, '/message:stream'), body, options);
  }

  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream('SubscribeToTask', this.route(request.tenant, `/tasks/${segment(request.id)}:subscribe`), '{}', options);
  }

  close(): Promise<void> {
    return this.transport.stop();
  }

  private route(tenant: string, path: string): string {
    return `${this.base}${tenant ? `/${segment(tenant)}` : ''}${path}`;
  }

  private async call(
    method: string,
    verb: HttpMethod,
    path: string,
    body: JsonObject | null,
    options?: CallOptions,
  ): Promise<unknown> {
    const spec: OperationSpec = {
      service: 'agent',
      name: `a2aRest${method}`,
      specName: `a2a_rest_${method}`,
      summary: `A2A HTTP+JSON ${method}`,
      method: verb,
      path,
      request: body === null ? null : `a2a:${method}Request`,
      query: null,
      response: null,
      responseContentType: 'application/json',
      idempotent: verb === 'GET',
      streaming: false,
      public: false,
      controlPlane: method === 'CancelTask',
      availability: 'a2a',
      idempotencyKeyFrom: [],
    };
    try {
      return await this.transport.unary(spec, body ?? undefined, {
        ...options,
        headers: { ...options?.headers, 'a2a-version': A2A_PROTOCOL_VERSION },
      });
    } catch (error) {
      if (!(error instanceof TransportRemoteError)) throw error;
      const reason = reasonIn(error.details);
      if (!reason) throw error;
      throw remoteError({ method, message: error.message, reason, wire: `HTTP ${error.statusCode}`, data: error.details });
    }
  }

  private async *stream(method: string, path: string, body: string, options?: CallOptions): AsyncGenerator<StreamResponse> {
    const url = new URL(this.url);
    url.pathname = path;
    const frames = readEventStream(
      this.transport,
      {
        url: url.href,
        method: 'POST',
        body,
        headers: { ...options?.headers, 'a2a-version': A2A_PROTOCOL_VERSION },
        signal: options?.signal,
      },
      (status, text) => failure(method, status, text),
    );
    for await (const frame of frames) {
      if (frame && typeof frame === 'object' && 'error' in frame) throw failure(method, 0, JSON.stringify(frame));
      yield decode(method, StreamResponseSchema, frame);
    }
  }
}

/** An AIP-193 error body (or anything else a route answered with a failing status). */
function failure(method: string, status: number, text: string): Error {
  let error: { code?: unknown; message?: unknown; details?: unknown } = {};
  try {
    const body = JSON.parse(text) as { error?: typeof error };
    if (body && typeof body === 'object' && body.error && typeof body.error === 'object') error = body.error;
  } catch {
    // not JSON: the status and text say what there is to say
  }
  const code = status || (typeof error.code === 'number' ? error.code : 0);
  const message = typeof error.message === 'string' ? error.message : text.slice(0, 200);
  const reason = reasonIn(error.details);
  if (!reason) {
    // Not an A2A error (no credentials, a proxy's page): the HTTP failure as any call reports it.
    return new TransportRemoteError(`${method} answered HTTP ${code}: ${message}`, {
      statusCode: code || null,
      details: error.details,
      retryable: false,
    });
  }
  return remoteError({ method, message, reason, wire: `HTTP ${code}`, data: error.details });
}

function segment(value: string): string {
  return encodeURIComponent(value);
}
