// An A2A 1.0 agent built with the official SDK (@a2a-js/sdk) serving all three bindings at once:
// JSON-RPC (POST /) and HTTP+JSON (under /rest) on one express app, gRPC on the SDK's own
// grpc-js service on a port of its own; its card lists the three in the order a test asks for,
// with `capabilities.streaming` as asked. Its executor streams: the task, WORKING, an artifact
// in two chunks (`echo: ` then the text, the second appended), then COMPLETED with a reply
// message. The text `wait` holds the task WORKING until the test releases it or cancels it, so
// a second client can subscribe to it meanwhile.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';

const STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5 } as const;
const ROLE_AGENT = 2;

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface StreamingSdkAgent {
  /** Where the card is (the express app). */
  readonly url: string;
  /** Lets a `wait` task finish (or, with `cancel`, end it canceled). */
  release(taskId: string): void;
  close(): Promise<void>;
}

export interface StreamingSdkAgentOptions {
  /** The card's interfaces, in this order (default JSONRPC, HTTP+JSON, GRPC). */
  readonly order?: readonly (Binding | 'SOAP')[];
  /** `capabilities.streaming` (default true). */
  readonly streaming?: boolean;
  /** The protocol version the card gives each interface (default 1.0). */
  readonly version?: string;
}

/** A promise per task id, made by whichever side (executor or test) gets there first. */
class Gates {
  private readonly gates = new Map<string, { promise: Promise<'done' | 'canceled'>; open: (how: 'done' | 'canceled') => void }>();

  private gate(id: string) {
    let gate = this.gates.get(id);
    if (!gate) {
      let open!: (how: 'done' | 'canceled') => void;
      const promise = new Promise<'done' | 'canceled'>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
      this.gates.set(id, gate);
    }
    return gate;
  }

  wait(id: string) {
    return this.gate(id).promise;
  }

  open(id: string, how: 'done' | 'canceled') {
    this.gate(id).open(how);
  }

  openAll() {
    for (const gate of this.gates.values()) gate.open('canceled');
  }
}

export async function startStreamingSdkAgent(options: StreamingSdkAgentOptions = {}): Promise<StreamingSdkAgent> {
  const gates = new Gates();
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const text = (context.userMessage.parts ?? [])
        .map((part: any) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      const { taskId, contextId } = context;
      const status = (state: number, message?: unknown) =>
        bus.publish({
          kind: 'statusUpdate',
          data: { taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined },
        } as any);
      const chunk = (value: string, append: boolean, lastChunk: boolean) =>
        bus.publish({
          kind: 'artifactUpdate',
          data: {
            taskId,
            contextId,
            artifact: {
              artifactId: 'doc',
              name: 'doc',
              description: '',
              parts: [{ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' }],
              metadata: undefined,
              extensions: [],
            },
            append,
            lastChunk,
            metadata: undefined,
          },
        } as any);
      if (!context.task) {
        bus.publish({
          kind: 'task',
          data: {
            id: taskId,
            contextId,
            history: [context.userMessage],
            artifacts: [],
            metadata: undefined,
            status: { state: STATE.SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          },
        } as any);
      }
      status(STATE.WORKING);
      if (text === 'wait' && (await gates.wait(taskId)) === 'canceled') {
        status(STATE.CANCELED);
        bus.finished();
        return;
      }
      chunk('echo: ', false, false);
      chunk(text, true, true);
      status(STATE.COMPLETED, {
        messageId: `reply-${taskId}`,
        contextId,
        taskId,
        role: ROLE_AGENT,
        parts: [{ content: { $case: 'text', value: `echo: ${text}` }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      });
      bus.finished();
    },
    async cancelTask(taskId) {
      gates.open(taskId, 'canceled');
    },
  };

  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grpcServer = new grpc.Server();
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
  const urls: Record<Binding | 'SOAP', string> = {
    JSONRPC: `${base}/`,
    'HTTP+JSON': `${base}/rest`,
    GRPC: `127.0.0.1:${grpcPort}`,
    SOAP: `${base}/soap`,
  };
  const order = options.order ?? ['JSONRPC', 'HTTP+JSON', 'GRPC'];
  const card = {
    name: 'sdk-streaming-echo',
    description: 'an @a2a-js/sdk agent on three bindings',
    supportedInterfaces: order.map((binding) => ({
      url: urls[binding],
      protocolBinding: binding,
      protocolVersion: options.version ?? '1.0',
      tenant: '',
    })),
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
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
  const handler = new DefaultRequestHandler(card as any, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url: base,
    release: (taskId) => gates.open(taskId, 'done'),
    close: async () => {
      gates.openAll();
      grpcServer.forceShutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
