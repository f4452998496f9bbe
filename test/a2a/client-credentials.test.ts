// parley's A2A client calling a protected parley agent with the `auth` option and no
// authenticator of its own: the blocking send goes through the transport's pipeline, but the
// streams (server-sent events on JSON-RPC and HTTP+JSON) and the gRPC binding are requests the
// A2A client makes itself, and must carry the same credentials. Without a key every binding is
// refused as unauthenticated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { StreamEvent } from '../../generated/types/index.js';

const KEY = 'a2a-client-key';

async function protectedAgent(t: { after(fn: () => unknown): void }, transport: 'http' | 'grpc'): Promise<AgentServer> {
  const agent = new AgentServer({
    name: 'guarded',
    transport,
    url: `${transport}://127.0.0.1:0`,
    a2a: true,
    authenticator: new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } }),
  });
  await agent.start();
  t.after(() => agent.stop());
  return agent;
}

async function streamed(client: AgentClient, text: string): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of client.streamTask(text)) events.push(event);
  return events;
}

describe('the A2A client sends its `auth` credentials on every binding', () => {
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    test(`${binding}: a blocking send and a stream with an API key; no key is refused`, async (t) => {
      const agent = await protectedAgent(t, 'http');
      const client = new AgentClient(agent.url, { protocol: 'a2a', a2aBinding: binding, auth: { apiKey: KEY } });
      t.after(() => client.close());
      const task = await client.sendTask('hello');
      assert.equal(task.state, 'completed');
      const events = await streamed(client, 'streamed with a key');
      assert.equal(events.at(-1)?.type, 'task_completed', JSON.stringify(events.at(-1)));

      const anonymous = new AgentClient(agent.url, { protocol: 'a2a', a2aBinding: binding });
      t.after(() => anonymous.close());
      await assert.rejects(streamed(anonymous, 'no key'), /401|unauthenticated|credentials/i);
    });
  }
});
