// A plain @grpc/grpc-js client for the grpc transport, without generated code: the transport
// accepts the JSON envelope's bytes as the message (the pass-through form), so the serializers
// are JSON.stringify and JSON.parse. Method paths come from proto/svc/transport/v1/transport.proto.
import * as grpc from '@grpc/grpc-js';

interface Envelope {
  id: string;
  ok?: boolean;
  result?: { state?: string; type?: string };
  error?: { code: string; message: string };
  final?: boolean;
}

const toBytes = (value: object): Buffer => Buffer.from(JSON.stringify(value));
const fromBytes = (bytes: Buffer): Envelope => JSON.parse(bytes.toString('utf8')) as Envelope;

const address = new URL(process.env.GRPC_AGENT_URL ?? 'grpc://127.0.0.1:50051').host;
const client = new grpc.Client(address, grpc.credentials.createInsecure());

const task = {
  id: `grpc-js-${Date.now()}`,
  messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello over grpc-js' }] }],
};

const answer = await new Promise<Envelope>((resolve, reject) => {
  client.makeUnaryRequest(
    '/svc.transport.v1.SvcTransport/Invoke',
    toBytes,
    fromBytes,
    { id: task.id, method: 'POST', path: '/tasks/', data: task },
    (error, response) => (error ? reject(error) : resolve(response!)),
  );
});
console.log(`grpc-js: ${answer.ok ? answer.result?.state : answer.error?.message}`);

const events = client.makeServerStreamRequest('/svc.transport.v1.SvcTransport/Stream', toBytes, fromBytes, {
  id: `${task.id}-stream`,
  method: 'POST',
  path: '/tasks/stream',
  data: { ...task, id: `${task.id}-stream` },
});
const kinds: string[] = [];
for await (const event of events as AsyncIterable<Envelope>) kinds.push(event.result?.type ?? '?');
console.log(`grpc-js stream: ${kinds.join(' ')}`);
client.close();
