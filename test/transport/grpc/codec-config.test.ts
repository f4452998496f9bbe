// The client codec is a transport option (`grpc.codec`): JSON by default, binary protobuf on
// request, and anything else is refused when the transport is built.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { AgentClient } from '../../../src/client/agent-client.js';
import { ConfigError } from '../../../src/core/errors.js';
import { ResolvedConfig } from '../../../src/transport/config.js';

test('grpc.codec defaults to json and serializes', () => {
  const config = new ResolvedConfig();
  assert.equal(config.grpc.codec, 'json');
  assert.equal(ResolvedConfig.fromJSON(new ResolvedConfig({ grpc: { codec: 'proto' } }).toJSON()).grpc.codec, 'proto');
});

test('an unknown grpc.codec is a ConfigError naming the field', () => {
  assert.throws(
    () => new ResolvedConfig({ grpc: { codec: 'xml' as never } }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.field, 'grpc.codec');
      return true;
    },
  );
});

for (const codec of ['json', 'proto'] as const) {
  test(`a client configured with grpc.codec ${codec} round-trips a task`, async (t) => {
    const agent = new AgentServer({ name: 'echo', transport: 'grpc', url: 'grpc://127.0.0.1:0' });
    await agent.start();
    t.after(() => agent.stop());
    const client = new AgentClient(agent.url, { grpc: { codec } });
    t.after(() => client.close());
    const task = await client.sendTask('hello');
    assert.equal(task.state, 'completed');
    assert.equal(task.artifacts?.[0]?.parts[0]?.content, 'hello');
  });
}
