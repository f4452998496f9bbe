// Helpers for the A2A tests: a parley agent with the A2A boundary on, and a raw JSON-RPC poster
// that controls every header (the official SDK's client always sends well-formed requests).
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { AgentServer, type AgentServerOptions } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';

export interface A2aAgent {
  readonly agent: AgentServer;
  readonly url: string;
}

/** Starts an agent with `a2a: true` on http://127.0.0.1:0; stopped when the test ends. */
export async function startA2aAgent(
  t: { after(fn: () => unknown): void },
  options: Partial<AgentServerOptions> & { handler?: AgentHandler } = {},
): Promise<A2aAgent> {
  const agent = new AgentServer({ name: 'echo', description: 'echoes', a2a: true, ...options });
  await agent.start();
  t.after(() => agent.stop());
  return { agent, url: agent.url };
}

export interface RpcAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: any;
}

/** POSTs `body` (a value, sent as JSON, or text as it is) to the agent's JSON-RPC route. */
export async function postRpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** One JSON-RPC call; answers the response object. */
export async function call(
  url: string,
  method: string,
  params: unknown,
  id: unknown = 1,
  headers?: Record<string, string>,
): Promise<any> {
  const answer = await postRpc(url, { jsonrpc: '2.0', id, method, params }, headers);
  return answer.json;
}

export function userMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/**
 * The @a2a-js/sdk client for the agent at `url`, fetching the card and every JSON-RPC call
 * through `fetchImpl` (to add headers an application's instrumentation would, say).
 */
export function sdkClientVia(url: string, fetchImpl: typeof fetch): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(url);
}
