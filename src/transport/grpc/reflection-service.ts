// gRPC server reflection, grpc.reflection.v1 and grpc.reflection.v1alpha (same messages, two
// package names), so grpcurl and friends can call the server without its .proto files.
// Answers list_services, file_by_filename and file_containing_symbol with serialized
// FileDescriptorProtos taken from the protobuf-es generated descriptors (the file itself
// first, then every file it imports, transitively); all_extension_numbers_of_type answers an
// empty list for known messages (these files declare no extensions); anything unknown gets an
// error_response with NOT_FOUND. Never authenticated.
import { toBinary, type DescFile, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import { nestedTypes } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { ServerDuplexStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import type {
  ServerReflectionRequest as RequestV1,
  ServerReflectionResponseSchema,
} from '../../../generated/proto/grpc/reflection/v1/reflection_pb.js';
import { GrpcStatus } from './errors.js';

type ResponseInit = MessageInitShape<typeof ServerReflectionResponseSchema>;
/** The request fields both versions share. */
type ReflectionRequest = Pick<RequestV1, 'host' | 'messageRequest'>;

/** Every symbol and file reachable from the served services. */
export class DescriptorIndex {
  private readonly files = new Map<string, DescFile>();
  private readonly symbols = new Map<string, DescFile>();
  private readonly messages = new Set<string>();
  private readonly encoded = new Map<string, Uint8Array[]>();

  constructor(readonly services: readonly DescService[]) {
    for (const service of services) this.addFile(service.file);
  }

  serviceNames(): string[] {
    return this.services.map((service) => service.typeName);
  }

  fileByName(name: string): DescFile | undefined {
    return this.files.get(name);
  }

  fileContaining(symbol: string): DescFile | undefined {
    return this.symbols.get(symbol.replace(/^\./, ''));
  }

  isMessage(typeName: string): boolean {
    return this.messages.has(typeName.replace(/^\./, ''));
  }

  /** The file's FileDescriptorProto bytes, then those of its imports (each once). */
  serialized(file: DescFile): Uint8Array[] {
    const cached = this.encoded.get(file.name);
    if (cached) return cached;
    const out: Uint8Array[] = [];
    const seen = new Set<string>();
    const visit = (current: DescFile) => {
      if (seen.has(current.name)) return;
      seen.add(current.name);
      out.push(toBinary(FileDescriptorProtoSchema, current.proto));
      for (const dependency of current.dependencies) visit(dependency);
    };
    visit(file);
    this.encoded.set(file.name, out);
    return out;
  }

  private addFile(file: DescFile): void {
    const name = file.proto.name;
    if (this.files.has(name)) return;
    this.files.set(name, file);
    for (const type of nestedTypes(file)) {
      this.symbols.set(type.typeName, file);
      if (type.kind === 'message') this.messages.add(type.typeName);
      if (type.kind === 'service') {
        for (const method of type.methods) this.symbols.set(`${type.typeName}.${method.name}`, file);
      }
    }
    for (const dependency of file.dependencies) this.addFile(dependency);
  }
}

/** One reflection answer; the same shape serves v1 and v1alpha. */
function reflect(index: DescriptorIndex, request: ReflectionRequest): ResponseInit {
  const base = { validHost: request.host, originalRequest: request as RequestV1 };
  const notFound = (message: string): ResponseInit => ({
    ...base,
    messageResponse: { case: 'errorResponse', value: { errorCode: GrpcStatus.NOT_FOUND, errorMessage: message } },
  });
  const files = (file: DescFile | undefined, what: string): ResponseInit =>
    file
      ? { ...base, messageResponse: { case: 'fileDescriptorResponse', value: { fileDescriptorProto: index.serialized(file) } } }
      : notFound(what);
  const { messageRequest } = request;
  switch (messageRequest.case) {
    case 'listServices':
      return {
        ...base,
        messageResponse: { case: 'listServicesResponse', value: { service: index.serviceNames().map((name) => ({ name })) } },
      };
    case 'fileByFilename':
      return files(index.fileByName(messageRequest.value), `file ${JSON.stringify(messageRequest.value)} not found`);
    case 'fileContainingSymbol':
      return files(index.fileContaining(messageRequest.value), `symbol ${JSON.stringify(messageRequest.value)} not found`);
    case 'fileContainingExtension':
      return notFound(
        `extension ${messageRequest.value.extensionNumber} of ${JSON.stringify(messageRequest.value.containingType)} not found`,
      );
    case 'allExtensionNumbersOfType':
      return index.isMessage(messageRequest.value)
        ? {
            ...base,
            messageResponse: {
              case: 'allExtensionNumbersResponse',
              value: { baseTypeName: messageRequest.value.replace(/^\./, ''), extensionNumber: [] },
            },
          }
        : notFound(`type ${JSON.stringify(messageRequest.value)} not found`);
    default:
      return {
        ...base,
        messageResponse: {
          case: 'errorResponse',
          value: { errorCode: GrpcStatus.UNIMPLEMENTED, errorMessage: 'the reflection request names no known operation' },
        },
      };
  }
}

/**
 * ServerReflectionInfo, v1 or v1alpha: one answer per request, in order, on the one
 * bidirectional stream; the answers end when the requests do. (The v1alpha messages have the
 * same fields and numbers as v1; only the names differ.)
 */
export function createReflectionService(index: DescriptorIndex): UntypedServiceImplementation {
  const serverReflectionInfo = (call: ServerDuplexStream<ReflectionRequest, ResponseInit>): void => {
    call.on('data', (request: ReflectionRequest) => call.write(reflect(index, request)));
    call.on('end', () => call.end());
  };
  return { serverReflectionInfo };
}
