// The protobuf services an endpoint table adds to the grpc server (Endpoint.grpc): each such
// endpoint is one method at its standard path (`/package.Service/Method`), binary protobuf on
// the wire, served through the shared dispatcher like every other request: authentication (the
// same authenticator, credentials from the `authorization` / `x-api-key` metadata, a stream
// ended when its credentials expire), the request and stream slots, size limits, metrics, logs
// and spans. The call holds one `maximum_concurrent_rpcs` slot while it runs, as SvcTransport's
// calls do, and a stream waits for its buffer to drain before the next event (stream-write.ts).
//
// The message is read here with the method's input schema (a message that does not decode
// ends the call before the dispatcher sees it), handed to the handler as the request's data,
// with the call's text metadata as its params; the handler's ProtoJSON answer, or each event,
// is written with the output schema. What a refusal or a failure becomes is the protocol's
// choice (GrpcMethodBinding.failure): a status code, a message and, when it gives one, a
// google.rpc.Status in the `grpc-status-details-bin` trailer.
import {
  fromBinary,
  fromJson,
  fromJsonString,
  toBinary,
  type DescMessage,
  type DescService,
  type JsonValue,
} from '@bufbuild/protobuf';
import type {
  Metadata,
  sendUnaryData,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { extractCredentials } from '../../auth/credentials.js';
import { newId } from '../../core/ids.js';
import type { Dispatcher } from '../dispatcher.js';
import {
  Inbound,
  type Endpoint,
  type EndpointTable,
  type GrpcFailure,
  type GrpcMethodBinding,
  type QueryParams,
} from '../endpoint.js';
import { EndpointError, toEndpointError } from '../endpoint-error.js';
import type { Slots } from '../slots.js';
import { traceHeadersFrom } from '../trace-headers.js';
import { REQUEST_ID_HEADER } from '../wire-names.js';
import { CallStatus, GrpcStatus } from './errors.js';
import type { GrpcJsModule } from './load.js';
import type { CallContext, ReceivedMessage } from './refused-calls.js';
import { writeInTurn } from './stream-write.js';

/** The trailer a google.rpc.Status travels in. */
const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** Metadata that never reaches a handler's params: the credentials, read apart. */
const CREDENTIAL_KEYS = new Set(['authorization', 'x-api-key']);

/** One protobuf service of the table, with the endpoints of its methods. */
export interface MethodService {
  readonly service: DescService;
  readonly definition: ServiceDefinition;
  readonly paths: readonly string[];
  readonly endpoints: ReadonlyMap<string, Endpoint>;
}

/** The table's endpoints served as gRPC methods, grouped by service (unary and server-streaming methods only). */
export function methodServices(table: EndpointTable): MethodService[] {
  const byService = new Map<DescService, Map<string, Endpoint>>();
  for (const endpoint of table.values()) {
    const method = endpoint.grpc?.method;
    if (!method || (method.methodKind !== 'unary' && method.methodKind !== 'server_streaming')) continue;
    const endpoints = byService.get(method.parent) ?? new Map<string, Endpoint>();
    endpoints.set(method.localName, endpoint);
    byService.set(method.parent, endpoints);
  }
  const identity = (bytes: Buffer): Buffer => bytes;
  return [...byService].map(([service, endpoints]) => {
    const definition: Record<string, ServiceDefinition[string]> = {};
    for (const [name, endpoint] of endpoints) {
      const method = endpoint.grpc!.method;
      definition[name] = {
        path: `/${service.typeName}/${method.name}`,
        requestStream: false,
        responseStream: method.methodKind === 'server_streaming',
        // Bytes in and out: the service decodes and encodes itself, so a bad message is its refusal.
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      };
    }
    return { service, definition, paths: Object.values(definition).map((entry) => entry.path), endpoints };
  });
}

export interface MethodServiceOptions {
  readonly grpc: GrpcJsModule;
  readonly dispatcher: Dispatcher;
  /** `maximum_concurrent_rpcs`, shared with SvcTransport. */
  readonly rpcSlots: Slots;
  readonly report: (where: string, error: unknown) => void;
}

type UnaryCall = ServerUnaryCall<ReceivedMessage, Buffer>;
type StreamCall = ServerWritableStream<ReceivedMessage, Buffer>;

/** A status the call ends with, as the protocol chose it. */
class MethodFailure extends Error {
  constructor(readonly failure: GrpcFailure) {
    super(failure.message);
  }
}

export function createMethodService(served: MethodService, options: MethodServiceOptions): UntypedServiceImplementation {
  const { grpc, dispatcher, rpcSlots, report } = options;
  const implementation: UntypedServiceImplementation = {};

  /** The status object grpc-js sends: the protocol's code and message, its details as a trailer. */
  const statusOf = (error: unknown) => {
    if (error instanceof MethodFailure) {
      const metadata = new grpc.Metadata();
      const { details } = error.failure;
      if (details) metadata.set(STATUS_DETAILS_KEY, Buffer.from(details.buffer, details.byteOffset, details.byteLength));
      return { code: error.failure.code, details: error.failure.message, metadata };
    }
    if (error instanceof CallStatus) return { code: error.code, details: error.message };
    report('a gRPC method handler', error);
    return { code: GrpcStatus.INTERNAL, details: 'the server failed while handling the call' };
  };

  for (const [name, endpoint] of served.endpoints) {
    const binding: GrpcMethodBinding = endpoint.grpc!;
    const { input, output } = binding.method;
    const fail = (error: EndpointError) => new MethodFailure(binding.failure(error));

    /** The request the dispatcher serves, or the protocol's refusal of a message that does not decode. */
    const inboundOf = (call: UnaryCall | StreamCall): Inbound => {
      const { bytes, context } = call.request;
      const requestId = textOf(call.metadata, REQUEST_ID_HEADER) || newId();
      let data: unknown;
      try {
        data = fromBinary(input, bytes);
      } catch (error) {
        const refusal = new EndpointError(
          'invalid_request',
          `the request is not a ${input.typeName} message: ${error instanceof Error ? error.message : String(error)}`,
        );
        context.refused = {
          requestId,
          method: endpoint.spec.method,
          path: endpoint.spec.path,
          error: { status: refusal.status, code: refusal.code },
        };
        throw fail(refusal);
      }
      return new Inbound(
        {
          method: endpoint.spec.method,
          path: endpoint.spec.path,
          data,
          params: paramsOf(call.metadata),
          requestId,
          idempotencyKey: null,
          credentials: extractCredentials(
            (key) => textOf(call.metadata, key),
            () => undefined,
          ),
          receivedBytes: bytes.length,
          trace: traceHeadersFrom((key) => textOf(call.metadata, key)),
        },
        context.abort,
      );
    };

    /** A call whose client went away while it waited for a slot ends as CANCELLED. */
    const acquire = async (context: CallContext): Promise<() => void> => {
      try {
        return await rpcSlots.acquire(() => context.abort.signal);
      } catch {
        throw new CallStatus(GrpcStatus.CANCELLED, 'the call was cancelled while waiting for a slot');
      }
    };

    if (binding.method.methodKind === 'unary') {
      const answer = async (call: UnaryCall): Promise<Buffer> => {
        const inbound = inboundOf(call);
        const { context } = call.request;
        const release = endpoint.spec.controlPlane || endpoint.modelBacked ? null : await acquire(context);
        try {
          context.dispatched = true;
          const outcome = await dispatcher.unary(inbound, endpoint);
          if (outcome.kind !== 'json') throw new EndpointError('internal', 'a gRPC method answered text');
          return encode(output, () => fromJsonString(output, outcome.encoded.text));
        } catch (error) {
          if (error instanceof MethodFailure || error instanceof CallStatus) throw error;
          throw fail(toEndpointError(error));
        } finally {
          release?.();
        }
      };
      implementation[name] = (call: UnaryCall, callback: sendUnaryData<Buffer>) => {
        answer(call).then(
          (message) => callback(null, message),
          (error: unknown) => callback(statusOf(error)),
        );
      };
      continue;
    }

    const serve = async (call: StreamCall): Promise<void> => {
      const inbound = inboundOf(call);
      const { context } = call.request;
      const release = endpoint.modelBacked ? () => undefined : await acquire(context);
      try {
        context.dispatched = true;
        let frames: Awaited<ReturnType<Dispatcher['openStream']>>;
        try {
          frames = await dispatcher.openStream(inbound, endpoint);
        } catch (error) {
          throw fail(toEndpointError(error));
        }
        // Leaving early (the client went away, the last event, a failure) returns `frames`,
        // which frees the dispatcher's stream slot.
        for await (const frame of frames) {
          if (!frame.ok) throw new MethodFailure(binding.failure(frame.error));
          const message = encode(output, () => fromJson(output, frame.value as JsonValue));
          if (!(await writeInTurn(call, context, message)) || frame.final) return;
        }
      } finally {
        release();
      }
    };
    implementation[name] = (call: StreamCall) => {
      serve(call).then(
        () => call.end(),
        // grpc-js ends a server stream with the status of an 'error' it is given.
        (error: unknown) => call.emit('error', statusOf(error)),
      );
    };
  }
  return implementation;

  /** Binary protobuf of an answer; one that does not fit the output schema is this server's fault. */
  function encode(schema: DescMessage, read: () => Parameters<typeof toBinary>[1]): Buffer {
    let bytes: Uint8Array;
    try {
      bytes = toBinary(schema, read());
    } catch (error) {
      report(`the answer of a ${served.service.typeName} method`, error);
      throw new CallStatus(GrpcStatus.INTERNAL, `the server's answer is not a ${schema.typeName} message`);
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/** The call's text metadata, credentials left out, as the request's params. */
function paramsOf(metadata: Metadata): QueryParams {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (typeof value === 'string' && !CREDENTIAL_KEYS.has(key)) params[key] = value;
  }
  return params;
}

function textOf(metadata: Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' ? value : undefined;
}
