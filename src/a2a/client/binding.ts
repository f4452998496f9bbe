// What each outbound binding (jsonrpc.ts, rest.ts, grpc.ts) offers the client: the A2A methods
// it uses, on protobuf-es messages in and out, whatever the wire. A refusal by the agent is an
// A2aClientError `a2a_rpc_error` (remote-errors.ts), the same on every binding; a failure to
// reach the agent is the usual transport error.
import type { CallOptions } from '../../../generated/operations/spec.js';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { JSONRPC_BINDING } from '../card/agent-card.js';

/** The bindings parley's client speaks, as a card's `protocolBinding` names them. */
export const A2A_BINDINGS = [JSONRPC_BINDING, 'HTTP+JSON', 'GRPC'] as const;
export type A2aBindingName = (typeof A2A_BINDINGS)[number];

export interface A2aBindingClient {
  readonly binding: A2aBindingName;
  /** The interface URL the calls go to (as the card wrote it, resolved). */
  readonly url: string;
  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse>;
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task>;
  listTasks(request: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task>;
  /** The agent's StreamResponses in order; the iterator ends when the agent closes the stream. */
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse>;
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse>;
  close(): Promise<void>;
}

export function checkBindingOption(value: unknown): A2aBindingName | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    const upper = value.trim().toUpperCase();
    const found = A2A_BINDINGS.find((name) => name === upper);
    if (found) return found;
  }
  throw new RangeError(`a2aBinding must be one of ${A2A_BINDINGS.join(', ')}, not ${JSON.stringify(value)}`);
}
