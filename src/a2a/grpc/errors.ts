// How the gRPC binding answers a failure, per the A2A specification's gRPC mapping: the status
// code of the error's kind (errors/kinds.ts, the spec's table), the message as the status
// message, and a google.rpc.Status holding the google.rpc.ErrorInfo (reason, domain
// a2a-protocol.org, metadata) in the `grpc-status-details-bin` trailer, which gRPC clients that
// read rich errors (the A2A SDKs among them) turn back into the A2A error.
//
// A failure travels from the handler to the transport as an EndpointError whose code is the
// ErrorInfo reason and whose details are the ErrorInfo, so a stream that fails after it opened
// (the dispatcher hands on only the wire error object then) is answered the same way. Refusals
// the pipeline makes before the handler runs are mapped by their HTTP-like status: credentials
// missing or refused are UNAUTHENTICATED, a request too large INVALID_ARGUMENT, a full server
// RESOURCE_EXHAUSTED or UNAVAILABLE, anything else on our side INTERNAL.
import { create, toBinary } from '@bufbuild/protobuf';
import { anyPack } from '@bufbuild/protobuf/wkt';
import { ErrorInfoSchema } from '../../../generated/proto/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../generated/proto/google/rpc/status_pb.js';
import type { WireError } from '../../../generated/types/index.js';
import type { GrpcFailure } from '../../transport/endpoint.js';
import { EndpointError } from '../../transport/endpoint-error.js';
import type { A2aError } from '../errors/a2a-error.js';
import { A2A_ERROR_KINDS, ERROR_REASONS, GRPC_CODE_OF_KIND, HTTP_STATUS_OF_KIND, type A2aErrorKind } from '../errors/kinds.js';

const A2A_DOMAIN = 'a2a-protocol.org';

/** gRPC status codes this file names (grpc-js's `status` values). */
const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

/** The kind of each ErrorInfo reason. */
const KIND_OF_REASON: ReadonlyMap<string, A2aErrorKind> = new Map(A2A_ERROR_KINDS.map((kind) => [ERROR_REASONS[kind], kind]));

/** An A2aError as the EndpointError the pipeline carries to the transport. */
export function carriedFailure(error: A2aError): EndpointError {
  return new EndpointError(ERROR_REASONS[error.kind], error.message, error.errorInfo(), {
    status: HTTP_STATUS_OF_KIND[error.kind],
  });
}

/** The gRPC status a failed A2A call ends with (GrpcMethodBinding.failure). */
export function grpcFailure(error: Pick<WireError, 'code' | 'message' | 'status' | 'details'>): GrpcFailure {
  const kind = KIND_OF_REASON.get(error.code);
  if (kind !== undefined) return withErrorInfo(GRPC_CODE_OF_KIND[kind], error.message, kind, metadataOf(error.details));
  switch (error.status) {
    case 401:
      return { code: UNAUTHENTICATED, message: error.message };
    case 403:
      return { code: PERMISSION_DENIED, message: error.message };
    case 408:
    case 504:
      return { code: DEADLINE_EXCEEDED, message: error.message };
    case 429:
      return { code: RESOURCE_EXHAUSTED, message: error.message };
    case 503:
      return { code: UNAVAILABLE, message: error.message };
  }
  const fallback: A2aErrorKind = error.status < 500 ? 'invalidRequest' : 'internalError';
  return withErrorInfo(GRPC_CODE_OF_KIND[fallback], error.message, fallback, {});
}

function withErrorInfo(code: number, message: string, kind: A2aErrorKind, metadata: Record<string, string>): GrpcFailure {
  const info = create(ErrorInfoSchema, { reason: ERROR_REASONS[kind], domain: A2A_DOMAIN, metadata });
  const status = create(StatusSchema, { code, message, details: [anyPack(ErrorInfoSchema, info)] });
  return { code, message, details: toBinary(StatusSchema, status) };
}

/** The ErrorInfo metadata a carried failure holds (string values only). */
function metadataOf(details: unknown): Record<string, string> {
  const metadata = (details as { metadata?: unknown } | null | undefined)?.metadata;
  if (typeof metadata !== 'object' || metadata === null) return {};
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) if (typeof value === 'string') strings[key] = value;
  return strings;
}
