// Helpers for the A2A gRPC binding's tests: a parley agent with `a2a: true` on the grpc
// transport, typed stubs of lf.a2a.v1.A2AService as users make them (grpc-js with
// @grpc/proto-loader on the committed proto, connect-es on the protobuf-es descriptors), and the
// google.rpc.ErrorInfo read back from a status's `grpc-status-details-bin` trailer.
import { fileURLToPath } from 'node:url';
import { fromBinary, type JsonObject } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import { ErrorInfoSchema, type ErrorInfo } from '../../../generated/proto/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../generated/proto/google/rpc/status_pb.js';
import { A2AService } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { AgentServer, type AgentServerOptions } from '../../../src/agent/agent-server.js';
import { createTransport } from '../../../src/transport/factory.js';

const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

export interface GrpcA2aAgent {
  readonly agent: AgentServer;
  /** grpc://127.0.0.1:PORT */
  readonly url: string;
  /** 127.0.0.1:PORT, the target gRPC clients dial. */
  readonly target: string;
}

/** Starts an agent with `a2a: true` on grpc://127.0.0.1:0; stopped when the test ends. */
export async function startGrpcA2aAgent(
  t: { after(fn: () => unknown): void },
  options: Partial<AgentServerOptions> = {},
): Promise<GrpcA2aAgent> {
  const agent = new AgentServer({
    name: 'echo',
    description: 'echoes',
    a2a: true,
    transport: 'grpc',
    url: 'grpc://127.0.0.1:0',
    ...options,
  });
  await agent.start();
  t.after(() => agent.stop());
  return { agent, url: agent.url, target: agent.url.replace(/^grpc:\/\//, '') };
}

/** The A2AService stub grpc-js makes from the committed proto (what a user of grpc-js writes). */
export type A2aStub = grpc.Client & Record<string, any>;

let serviceConstructor: grpc.ServiceClientConstructor | null = null;

export function grpcJsStub(t: { after(fn: () => unknown): void }, target: string): A2aStub {
  if (!serviceConstructor) {
    const definition = protoLoader.loadSync('lf/a2a/v1/a2a.proto', {
      includeDirs: [PROTO_ROOT],
      keepCase: false,
      longs: String,
      enums: String,
      defaults: false,
      oneofs: true,
    });
    const loaded = grpc.loadPackageDefinition(definition) as any;
    serviceConstructor = loaded.lf.a2a.v1.A2AService as grpc.ServiceClientConstructor;
  }
  const stub = new serviceConstructor(target, grpc.credentials.createInsecure()) as A2aStub;
  t.after(() => stub.close());
  return stub;
}

/** A2A-Version 1.0 (and anything else) as call metadata. */
export function metadataOf(entries: Record<string, string> = {}): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries({ 'a2a-version': '1.0', ...entries })) metadata.set(key, value);
  return metadata;
}

/** One unary call on a grpc-js stub: the answer, or the ServiceError it failed with. */
export function unaryCall(
  stub: A2aStub,
  method: string,
  request: unknown,
  metadata: grpc.Metadata = metadataOf(),
): Promise<{ answer?: any; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    stub[method](request, metadata, (error: grpc.ServiceError | null, answer: unknown) =>
      resolve(error ? { error } : { answer }),
    );
  });
}

/** The ErrorInfo in a grpc-js error's `grpc-status-details-bin`, with the Status code beside it. */
export function errorInfoOf(error: grpc.ServiceError): { code: number; info: ErrorInfo | undefined } {
  const [bytes] = error.metadata.get('grpc-status-details-bin');
  if (!Buffer.isBuffer(bytes)) throw new Error(`no grpc-status-details-bin in ${JSON.stringify(error.metadata.getMap())}`);
  const status = fromBinary(StatusSchema, bytes);
  const any = status.details[0];
  return { code: status.code, info: any ? anyUnpack(any, ErrorInfoSchema) : undefined };
}

/** A connect-es client of A2AService over the gRPC protocol (HTTP/2). */
export function connectClient(target: string): Client<typeof A2AService> {
  const transport = createGrpcTransport({ baseUrl: `http://${target}` });
  return createClient(A2AService, transport);
}

/** The agent's public A2A card, read through SvcTransport (the card's route on the grpc transport). */
export async function cardOverGrpc(url: string): Promise<JsonObject> {
  const client = await createTransport('grpc', url);
  try {
    return (await client.unary(agentOperations.getA2ACard as OperationSpec, undefined)) as JsonObject;
  } finally {
    await client.stop();
  }
}

export function userMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}
