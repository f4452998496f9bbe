// An A2A 1.0 agent built with the official SDK (@a2a-js/sdk), set up as its docs show: an
// AgentExecutor, DefaultRequestHandler with the in-memory task store, and the express JSON-RPC
// and card handlers. It echoes text ("echo: <text>") as a message and an artifact; the text
// `wait` works until canceled. A real independent peer for parley's outbound client.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const STATE = { WORKING: 2, COMPLETED: 3, CANCELED: 5 } as const;
const ROLE_AGENT = 2;

export interface SdkAgent {
  readonly url: string;
  /** How many JSON-RPC requests reached it. */
  readonly calls: () => number;
  close(): Promise<void>;
}

export interface SdkAgentOptions {
  /** Where the card says the JSON-RPC interface is (default: this server's root). */
  readonly interfaceUrl?: (base: string) => string;
}

export async function startSdkAgent(options: SdkAgentOptions = {}): Promise<SdkAgent> {
  const waiting = new Map<string, () => void>();
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const text = (context.userMessage.parts ?? [])
        .map((part: any) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      const base = {
        id: context.taskId,
        contextId: context.contextId,
        history: [context.userMessage],
        artifacts: [],
        metadata: undefined,
      };
      if (text === 'wait') {
        bus.publish({
          kind: 'task',
          data: { ...base, status: { state: STATE.WORKING, message: undefined, timestamp: undefined } },
        } as any);
        await new Promise<void>((resolve) => waiting.set(context.taskId, resolve));
        bus.publish({
          kind: 'statusUpdate',
          data: {
            taskId: context.taskId,
            contextId: context.contextId,
            status: { state: STATE.CANCELED, message: undefined, timestamp: undefined },
            metadata: undefined,
          },
        } as any);
        bus.finished();
        return;
      }
      const reply = {
        messageId: `reply-${context.taskId}`,
        contextId: context.contextId,
        taskId: context.taskId,
        role: ROLE_AGENT,
        parts: [{ content: { $case: 'text', value: `echo: ${text}` }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      const artifact = {
        artifactId: `art-${context.taskId}`,
        name: 'echo',
        description: '',
        parts: reply.parts,
        metadata: undefined,
        extensions: [],
      };
      bus.publish({
        kind: 'task',
        data: {
          ...base,
          artifacts: [artifact],
          status: { state: STATE.COMPLETED, message: reply, timestamp: new Date().toISOString() },
        },
      } as any);
      bus.finished();
    },
    async cancelTask(taskId) {
      waiting.get(taskId)?.();
      waiting.delete(taskId);
    },
  };
  const app = express();
  let calls = 0;
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name: 'sdk-echo',
    description: 'an @a2a-js/sdk echo agent',
    supportedInterfaces: [
      { url: options.interfaceUrl?.(base) ?? `${base}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    ],
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
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
  app.use((req, _res, next) => {
    if (req.method === 'POST') calls++;
    next();
  });
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url: base,
    calls: () => calls,
    close: () =>
      new Promise((resolve) => {
        for (const release of waiting.values()) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
