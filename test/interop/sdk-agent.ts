// An A2A 1.0 agent built with the official SDK (@a2a-js/sdk) (its setup: sdk-a2a-peer.mjs), with
// the JSON-RPC and card handlers only. It echoes text ("echo: <text>") as a message and an
// artifact; the text `wait` works until canceled. A real independent peer for parley's outbound
// client.
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { agentMessage, startSdkPeer, TASK_STATE, textOf, textPart } from './sdk-a2a-peer.mjs';

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
      const text = textOf(context.userMessage);
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
          data: { ...base, status: { state: TASK_STATE.WORKING, message: undefined, timestamp: undefined } },
        } as any);
        await new Promise<void>((resolve) => waiting.set(context.taskId, resolve));
        bus.publish({
          kind: 'statusUpdate',
          data: {
            taskId: context.taskId,
            contextId: context.contextId,
            status: { state: TASK_STATE.CANCELED, message: undefined, timestamp: undefined },
            metadata: undefined,
          },
        } as any);
        bus.finished();
        return;
      }
      const reply = agentMessage(context.taskId, context.contextId, [textPart(`echo: ${text}`)]);
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
          status: { state: TASK_STATE.COMPLETED, message: reply, timestamp: new Date().toISOString() },
        },
      } as any);
      bus.finished();
    },
    async cancelTask(taskId) {
      waiting.get(taskId)?.();
      waiting.delete(taskId);
    },
  };
  let calls = 0;
  const peer = await startSdkPeer(executor, {
    name: 'sdk-echo',
    description: 'an @a2a-js/sdk echo agent',
    streaming: false,
    interfaces: ({ base }) => [{ binding: 'JSONRPC', url: options.interfaceUrl?.(base) ?? `${base}/` }],
    onRequest: (req) => {
      if (req.method === 'POST') calls++;
    },
  });
  return {
    url: peer.url,
    calls: () => calls,
    close: () => {
      for (const release of waiting.values()) release();
      return peer.close();
    },
  };
}
