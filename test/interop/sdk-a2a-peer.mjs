// What every @a2a-js/sdk agent in the tests and the A2A bench has in common, set up as the SDK's
// docs show: an express app on 127.0.0.1:0 with the card handler and the JSON-RPC handler
// (optionally HTTP+JSON under /rest, and gRPC on a port of its own) over one
// DefaultRequestHandler with the in-memory task store, and a card with one echo skill. Each
// caller brings its own AgentExecutor. Plain JavaScript, so the bench runs it with node as it
// is and the tests import it through tsx (types in sdk-a2a-peer.d.mts).
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/** Task states and roles as the SDK's protobuf types number them. */
export const TASK_STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5 };
export const ROLE_AGENT = 2;

/** A text part in the SDK's shape. */
export function textPart(value) {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' };
}

/** The text of a message's text parts, joined. */
export function textOf(message) {
  return (message.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The agent's message in a task, with `parts`. */
export function agentMessage(taskId, contextId, parts) {
  return {
    messageId: `reply-${taskId}`,
    contextId,
    taskId,
    role: ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export async function startSdkPeer(executor, options) {
  const app = express();
  const server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${server.address().port}`;
  let grpcServer = null;
  let grpcAddress = null;
  let grpcSdk = null;
  if (options.grpc) {
    // Loaded only here: the bench's baseline serves JSON-RPC alone, and its memory is measured.
    const grpc = await import('@grpc/grpc-js');
    grpcSdk = await import('@a2a-js/sdk/server/grpc');
    const started = new grpc.Server();
    const port = await new Promise((resolve, reject) =>
      started.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    grpcServer = started;
    grpcAddress = `127.0.0.1:${port}`;
  }
  const card = {
    name: options.name,
    description: options.description,
    supportedInterfaces: options.interfaces({ base, grpc: grpcAddress }).map(({ binding, url }) => ({
      url,
      protocolBinding: binding,
      protocolVersion: options.version ?? '1.0',
      tenant: '',
    })),
    version: '1.0.0',
    capabilities: { streaming: options.streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'echo',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  if (options.onRequest) {
    const seen = options.onRequest;
    app.use((req, _res, next) => {
      seen(req);
      next();
    });
  }
  if (options.rest) app.use('/rest', restHandler({ requestHandler: handler, userBuilder }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder }));
  if (grpcServer && grpcSdk) {
    grpcServer.addService(grpcSdk.A2AService, grpcSdk.grpcService({ requestHandler: handler, userBuilder }));
  }
  return {
    url: base,
    close: async () => {
      grpcServer?.forceShutdown();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
