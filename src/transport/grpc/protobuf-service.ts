// A grpc-js service definition made from a protobuf-es service descriptor (generated/proto):
// the standard paths (`/package.Service/Method`), binary protobuf messages read and written by
// the generated schemas. Handlers receive the decoded messages and may answer with their init
// shapes (plain objects), as the health and reflection services do.
import { create, fromBinary, toBinary, type DescMessage, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceDefinition } from '@grpc/grpc-js';

export function serviceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methods) {
    const { input, output, methodKind } = method;
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: methodKind === 'client_streaming' || methodKind === 'bidi_streaming',
      responseStream: methodKind === 'server_streaming' || methodKind === 'bidi_streaming',
      requestSerialize: encoder(input),
      requestDeserialize: (bytes: Buffer) => fromBinary(input, bytes),
      responseSerialize: encoder(output),
      responseDeserialize: (bytes: Buffer) => fromBinary(output, bytes),
    };
  }
  return definition;
}

/** Binary protobuf as the Buffer grpc-js writes from. */
function encoder(schema: DescMessage): (message: MessageInitShape<DescMessage>) => Buffer {
  return (message) => {
    const bytes = toBinary(schema, create(schema, message));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}
