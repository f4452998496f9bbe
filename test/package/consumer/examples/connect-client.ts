// A connect-es client for the grpc transport, built from the protobuf-es descriptors parley
// ships (parley-agents/proto/...). It sends binary protobuf; the envelope's `data` and
// `result` are google.protobuf.Value, converted from and to plain JSON with protobuf-es.
import { fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { SvcTransport } from 'parley-agents/proto/svc/transport/v1/transport_pb';

const address = new URL(process.env.GRPC_AGENT_URL ?? 'grpc://127.0.0.1:50051');
const agent = createClient(SvcTransport, createGrpcTransport({ baseUrl: `http://${address.host}` }));

const task = {
  id: `connect-${Date.now()}`,
  messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello over connect' }] }],
};

const answer = await agent.invoke({ id: task.id, method: 'POST', path: '/tasks/', data: fromJson(ValueSchema, task) });
if (!answer.ok) throw new Error(`the agent refused the task: ${JSON.stringify(answer.error)}`);
const done = toJson(ValueSchema, answer.result!) as { state: string };
console.log(`connect: ${done.state}`);

const kinds: JsonValue[] = [];
for await (const event of agent.stream({
  id: `${task.id}-stream`,
  method: 'POST',
  path: '/tasks/stream',
  data: fromJson(ValueSchema, { ...task, id: `${task.id}-stream` }),
})) {
  kinds.push((toJson(ValueSchema, event.result!) as { type: JsonValue }).type);
  if (event.final) break;
}
console.log(`connect stream: ${kinds.join(' ')}`);
