// Experiment (not part of the default benchmark): what parley's agent could answer behind a
// plain @grpc/grpc-js server. The echo agent runs on the runtime transport in this process;
// a grpc-js server with pass-through JSON serializers takes each Invoke, hands the envelope's
// task to the agent in-process and writes the answer envelope. It pays grpc-js's framing, the
// agent's whole task path and one extra in-process hop (the runtime client), but nothing of
// connect-node. grpcjs-over-runtime.mjs
import grpc from '@grpc/grpc-js';
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { AgentClient } from '../../dist/src/client/agent-client.js';

const url = `runtime://grpcjs-over-runtime-${process.pid}`;
const agent = new AgentServer({ name: 'echo', transport: 'runtime', url });
await agent.start();
const client = new AgentClient(url);

const passThrough = {
  requestSerialize: (value) => value,
  requestDeserialize: (bytes) => bytes,
  responseSerialize: (value) => value,
  responseDeserialize: (bytes) => bytes,
};
const service = {
  invoke: { path: '/svc.transport.v1.SvcTransport/Invoke', requestStream: false, responseStream: false, ...passThrough },
};
const server = new grpc.Server();
server.addService(service, {
  invoke(call, callback) {
    const request = JSON.parse(call.request.toString('utf8'));
    client.sendTask(request.data, { idempotencyKey: request.idempotency_key ?? undefined }).then(
      (task) => callback(null, Buffer.from(JSON.stringify({ id: request.id, ok: true, result: task, final: true }), 'utf8')),
      (error) => callback({ code: grpc.status.INTERNAL, details: String(error) }),
    );
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(`ready http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
