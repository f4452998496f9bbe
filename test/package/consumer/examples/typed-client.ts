// Call an agent through the typed client: every native operation is a method whose request and
// answer types come from parley's schemas. The transport carries the calls; pick the one the
// agent serves (http, sse, websocket, grpc) and give its URL. This agent runs
// `parley serve agent --transport sse`: sse answers like http and also streams a task's events.
import { createTransport } from 'parley-agents';
import { AgentOperationsClient } from 'parley-agents/clients';

const url = process.env.AGENT_URL ?? 'http://127.0.0.1:8080';
const transport = await createTransport('sse', url);
const agent = new AgentOperationsClient(transport);

try {
  const health = await agent.healthz();
  console.log(`health: ${health.status}`);

  const task = await agent.sendTask({
    id: `guide-${Date.now()}`,
    messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello from another repo' }] }],
  });
  const answer = task.artifacts?.[0]?.parts[0];
  console.log(`task: ${task.state}, answer: ${answer?.type === 'text' ? answer.content : '(none)'}`);

  for await (const event of agent.streamTask({
    id: `guide-stream-${Date.now()}`,
    messages: [{ role: 'user', parts: [{ type: 'text', content: 'stream this' }] }],
  })) {
    console.log(`event: ${event.type}`);
  }
} finally {
  await transport.stop();
}
