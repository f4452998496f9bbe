// The gRPC binding of the outbound client: lf.a2a.v1.A2AService through @grpc/grpc-js (loaded
// on first use, as the grpc transport loads it: it is optional), messages encoded by protobuf-es
// from the committed proto, service parameters (`a2a-version`, credentials) as call metadata,
// streams as server streaming calls. A refused call carries a google.rpc.Status in
// `grpc-status-details-bin` whose ErrorInfo names the A2A error. grpc-js reads a stream only as
// fast as the caller takes its messages (and holds none over its receive limit); a stream message
// over `max_event_bytes` ends the stream.
import { fromBinary, toBinary, toJson, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import type { Client, Metadata, ServiceError } from '@grpc/grpc-js';
import type { CallOptions } from '../../../generated/operations/spec.js';
import { ErrorInfoSchema } from '../../../generated/proto/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../generated/proto/google/rpc/status_pb.js';
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
import { TransportLimitError } from '../../transport/errors.js';
import { channelCredentials, ConnectionFailure } from '../../transport/grpc/channel-credentials.js';
import { type GrpcJsModule, loadGrpcJs } from '../../transport/grpc/load.js';
import type { Transport } from '../../transport/transport.js';
import { A2A_PROTOCOL_VERSION } from '../card/agent-card.js';
import type { A2aBindingClient } from './binding.js';
import { invalidResponse, remoteError } from './remote-errors.js';

const SERVICE = '/lf.a2a.v1.A2AService/';
const DETAILS_KEY = 'grpc-status-details-bin';

export class GrpcClient implements A2aBindingClient {
  readonly binding = 'GRPC' as const;
  private client: Promise<{ grpc: GrpcJsModule; client: Client }> | null = null;

  /**
   * `url` is `grpc://host:port` or `grpcs://host:port`; `settings` is the card's http transport,
   * whose TLS settings, credentials, limits and timeout the calls use.
   */
  constructor(
    private readonly settings: Transport,
    readonly url: string,
  ) {}

  sendMessage(request: SendMessageRequest, options?: CallOptions) {
    return this.unary('SendMessage', SendMessageRequestSchema, request, SendMessageResponseSchema, options);
  }

  getTask(request: GetTaskRequest, options?: CallOptions) {
    return this.unary('GetTask', GetTaskRequestSchema, request, TaskSchema, options);
  }

  listTasks(request: ListTasksRequest, options?: CallOptions) {
    return this.unary('ListTasks', ListTasksRequestSchema, request, ListTasksResponseSchema, options);
  }

  cancelTask(request: CancelTaskRequest, options?: CallOptions) {
    return this.unary('CancelTask', CancelTaskRequestSchema, request, TaskSchema, options);
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream('SendStreamingMessage', SendMessageRequestSchema, request, options);
  }

  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream('SubscribeToTask', SubscribeToTaskRequestSchema, request, options);
  }

  async close(): Promise<void> {
    const made = this.client;
    this.client = null;
    if (made) (await made.catch(() => null))?.client.close();
  }

  private connect(): Promise<{ grpc: GrpcJsModule; client: Client }> {
    this.client ??= loadGrpcJs().then((grpc) => {
      const target = new URL(this.url);
      const tls = target.protocol === 'grpcs:' ? this.settings.clientTls() : false;
      const credentials = channelCredentials(grpc, target.hostname, tls, new ConnectionFailure());
      const limit = this.settings.config.limits.maxEventBytes;
      const client = new grpc.Client(target.host, credentials, {
        'grpc.max_receive_message_length': Math.max(limit, this.settings.config.limits.maxResponseBytes),
      });
      return { grpc, client };
    });
    return this.client;
  }

  private async metadata(grpc: GrpcJsModule, options?: CallOptions): Promise<Metadata> {
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(options?.headers ?? {})) metadata.set(name, value);
    // The credentials the http transport's own calls send (`auth`, or an authenticator's).
    for (const [name, value] of Object.entries(await this.settings.authHeaders())) metadata.set(name, value);
    metadata.set('a2a-version', A2A_PROTOCOL_VERSION);
    return metadata;
  }

  private async unary<I extends DescMessage, O extends DescMessage>(
    method: string,
    input: I,
    request: MessageShape<I>,
    output: O,
    options?: CallOptions,
  ): Promise<MessageShape<O>> {
    const { grpc, client } = await this.connect();
    const metadata = await this.metadata(grpc, options);
    const deadline = Date.now() + (options?.timeoutMs ?? this.settings.config.timeout * 1000);
    return new Promise((resolve, reject) => {
      const call = client.makeUnaryRequest(
        SERVICE + method,
        (value: MessageShape<I>) => Buffer.from(toBinary(input, value)),
        (bytes: Buffer) => bytes,
        request,
        metadata,
        { deadline },
        (error, bytes) => {
          stop();
          if (error) return reject(refusal(method, error));
          try {
            resolve(fromBinary(output, bytes!));
          } catch (cause) {
            reject(invalidResponse(method, `bytes that are not a ${output.name}: ${(cause as Error).message}`));
          }
        },
      );
      const stop = onAbort(options?.signal, () => call.cancel());
    });
  }

  private async *stream<I extends DescMessage>(
    method: string,
    input: I,
    request: MessageShape<I>,
    options?: CallOptions,
  ): AsyncGenerator<StreamResponse> {
    const { grpc, client } = await this.connect();
    const metadata = await this.metadata(grpc, options);
    const call = client.makeServerStreamRequest(
      SERVICE + method,
      (value: MessageShape<I>) => Buffer.from(toBinary(input, value)),
      (bytes: Buffer) => bytes,
      request,
      metadata,
      {},
    );
    const stop = onAbort(options?.signal, () => call.cancel());
    const limit = this.settings.config.limits.maxEventBytes;
    let finished = false;
    try {
      for await (const bytes of call as AsyncIterable<Buffer>) {
        if (bytes.length > limit) {
          throw new TransportLimitError(`a ${method} event from ${this.url} is over ${limit} bytes`, {
            kind: 'response',
            url: this.url,
            limit,
            size: bytes.length,
          });
        }
        let response: StreamResponse;
        try {
          response = fromBinary(StreamResponseSchema, bytes);
        } catch (cause) {
          throw invalidResponse(method, `bytes that are not a StreamResponse: ${(cause as Error).message}`);
        }
        yield response;
      }
      finished = true;
    } catch (error) {
      throw isServiceError(error) ? refusal(method, error) : error;
    } finally {
      stop();
      if (!finished) call.cancel();
    }
  }
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as ServiceError).code === 'number' && 'metadata' in error;
}

/** A failed call: an A2A error when its status details hold an ErrorInfo, else grpc-js's error as it is. */
function refusal(method: string, error: ServiceError): Error {
  const raw = error.metadata?.get(DETAILS_KEY)[0];
  if (!raw) return error;
  let reason: string | undefined;
  let data: unknown;
  try {
    const status = fromBinary(StatusSchema, typeof raw === 'string' ? Buffer.from(raw, 'base64') : raw);
    const infos = status.details.map((any) => anyUnpack(any, ErrorInfoSchema)).filter((info) => info !== undefined);
    reason = infos[0]?.reason;
    data = infos.map((info) => ({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      ...(toJson(ErrorInfoSchema, info) as object),
    }));
  } catch {
    return error;
  }
  if (!reason) return error;
  return remoteError({ method, message: error.details, reason, wire: `gRPC ${error.code}`, data });
}

function onAbort(signal: AbortSignal | undefined, cancel: () => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    cancel();
    return () => undefined;
  }
  signal.addEventListener('abort', cancel, { once: true });
  return () => signal.removeEventListener('abort', cancel);
}
