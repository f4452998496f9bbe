// Baseline for the grpc benchmarks: a plain @grpc/grpc-js server, no parley code, serving
// svc.transport.v1.SvcTransport with pass-through JSON serializers (each message is the
// envelope's UTF-8 JSON text, the spec's gRPC wire). Invoke parses the request envelope and
// answers the task back, completed, in a response envelope (as the raw ws echo does). Stream
// sends `count` task_llm_stream events around a `bytes`-character delta, then a final one.
// grpcjs-echo.mjs [count] [bytes]
import grpc from '@grpc/grpc-js';
import { deltaText, wireEvent } from './stream-handler.mjs';

const count = Number(process.argv[2] ?? 20000);
const delta = deltaText(Number(process.argv[3] ?? 1024));

const passThrough = {
  requestSerialize: (value) => value,
  requestDeserialize: (bytes) => bytes,
  responseSerialize: (value) => value,
  responseDeserialize: (bytes) => bytes,
};
const service = {
  invoke: { path: '/svc.transport.v1.SvcTransport/Invoke', requestStream: false, responseStream: false, ...passThrough },
  stream: { path: '/svc.transport.v1.SvcTransport/Stream', requestStream: false, responseStream: true, ...passThrough },
};

const answer = (id, result, final) => Buffer.from(JSON.stringify({ id, ok: true, result, final }), 'utf8');

const server = new grpc.Server();
server.addService(service, {
  invoke(call, callback) {
    const request = JSON.parse(call.request.toString('utf8'));
    callback(null, answer(request.id, { ...request.data, state: 'completed' }, true));
  },
  stream(call) {
    const request = JSON.parse(call.request.toString('utf8'));
    const taskId = request.data?.id ?? request.id;
    // Written as fast as HTTP/2 flow control lets through, as parley's stream is.
    let i = 0;
    const more = () => {
      while (i < count) {
        i++;
        if (!call.write(answer(request.id, wireEvent(delta, taskId), false))) return void call.once('drain', more);
      }
      call.write(answer(request.id, { type: 'task_completed', task_id: taskId }, true));
      call.end();
    };
    more();
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(`ready http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
