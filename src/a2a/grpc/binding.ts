// The gRPC binding as endpoints of an agent's table: one endpoint per method of
// lf.a2a.v1.A2AService (the committed proto), each carrying its protobuf-es method descriptor
// (Endpoint.grpc), so the grpc transport serves it at `/lf.a2a.v1.A2AService/<Method>` on the
// server it already runs, through the same dispatcher as every native call, and no other wire
// can reach it. Every binding folder has this file: it builds the binding's endpoints from the
// one request handler.
//
// The operation specs are made here from the service descriptor, so the proto stays the one
// definition of the methods: the request is the decoded protobuf message (its `request` names
// the protobuf type, which no JSON Schema validates: the transport has decoded it), none is
// public or idempotent as a route, and the two server-streaming methods are streams.
import type { DescMethod } from '@bufbuild/protobuf';
import { A2AService } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import { routeKey, type Endpoint } from '../../transport/endpoint.js';
import type { A2aRequestHandler } from '../handler/request-handler.js';
import { callUnary, openStream, streamingMethods, unaryMethods } from './dispatch.js';
import { grpcFailure } from './errors.js';
import { grpcSpanStart } from './spans.js';

export function buildGrpcEndpoints(handler: A2aRequestHandler): Map<string, Endpoint> {
  const unary = unaryMethods(handler);
  const streaming = streamingMethods(handler);
  const endpoints = new Map<string, Endpoint>();
  for (const method of A2AService.methods) {
    const spec = specOf(method);
    const grpc = { method, failure: grpcFailure };
    const spanStart = grpcSpanStart(method);
    const run = unary.get(method.localName);
    const stream = streaming.get(method.localName);
    let endpoint: Endpoint;
    if (run) endpoint = { spec, grpc, spanStart, unary: (data, context) => callUnary(run, data, context) };
    else if (stream)
      endpoint = { spec, grpc, spanStart, endsWithSource: true, stream: (data, context) => openStream(stream, data, context) };
    // A method of a newer proto the handler does not know: left unserved (UNIMPLEMENTED).
    else continue;
    endpoints.set(routeKey(spec.method, spec.path), endpoint);
  }
  return endpoints;
}

function specOf(method: DescMethod): OperationSpec {
  const streaming = method.methodKind === 'server_streaming';
  return {
    service: 'agent',
    name: `a2aGrpc${method.name}`,
    specName: `a2a_grpc_${method.name.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase()}`,
    summary: `A2A 1.0 ${method.name} over gRPC (${method.parent.typeName}).`,
    method: 'POST',
    path: `/${method.parent.typeName}/${method.name}`,
    request: `proto:${method.input.typeName}`,
    query: null,
    response: `proto:${method.output.typeName}`,
    responseContentType: 'application/grpc+proto',
    idempotent: false,
    streaming,
    public: false,
    controlPlane: false,
    availability: 'a2a',
    idempotencyKeyFrom: [],
  };
}
