// The SERVER spans of A2A's gRPC binding, named as OpenTelemetry's RPC conventions name gRPC
// calls: `lf.a2a.v1.A2AService/SendMessage`, with rpc.system 'grpc', rpc.service and
// rpc.method. One name per method of the service: span names stay few.
import type { DescMethod } from '@bufbuild/protobuf';
import type { SpanStart } from '../../transport/endpoint.js';

export function grpcSpanStart(method: DescMethod): SpanStart {
  const service = method.parent.typeName;
  return {
    name: `${service}/${method.name}`,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method.name },
  };
}
