// An A2A 1.0 agent built with the official SDK (@a2a-js/sdk) (its setup: sdk-a2a-peer.mjs)
// serving all three bindings at once: JSON-RPC (POST /) and HTTP+JSON (under /rest) on one
// express app, gRPC on the SDK's own grpc-js service on a port of its own; its card lists the three in the order a test asks for,
// with `capabilities.streaming` as asked. Its executor streams: the task, WORKING, an artifact
// in two chunks (`echo: ` then the text, the second appended), then COMPLETED with a reply
// message. The text `wait` holds the task WORKING until the test releases it or cancels it, so
// a second client can subscribe to it meanwhile.
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { agentMessage, startSdkPeer, TASK_STATE as STATE, textOf, textPart } from './sdk-a2a-peer.mjs';

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
      const text = textOf(context.userMessage);
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
              parts: [textPart(value)],
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
      status(STATE.COMPLETED, agentMessage(taskId, contextId, [textPart(`echo: ${text}`)]));
      bus.finished();
    },
    async cancelTask(taskId) {
      gates.open(taskId, 'canceled');
    },
  };

  const order = options.order ?? ['JSONRPC', 'HTTP+JSON', 'GRPC'];
  const peer = await startSdkPeer(executor, {
    name: 'sdk-streaming-echo',
    description: 'an @a2a-js/sdk agent on three bindings',
    streaming: options.streaming ?? true,
    version: options.version ?? '1.0',
    rest: true,
    grpc: true,
    interfaces: ({ base, grpc }) => {
      const urls: Record<Binding | 'SOAP', string> = {
        JSONRPC: `${base}/`,
        'HTTP+JSON': `${base}/rest`,
        GRPC: grpc!,
        SOAP: `${base}/soap`,
      };
      return order.map((binding) => ({ binding, url: urls[binding] }));
    },
  });
  return {
    url: peer.url,
    release: (taskId) => gates.open(taskId, 'done'),
    close: () => {
      gates.openAll();
      return peer.close();
    },
  };
}
