// Baseline for the grpc benchmarks: connect-node's own server (connectNodeAdapter on
// node:http2, gRPC protocol only) serving svc.transport.v1.SvcTransport from the generated
// descriptor, no parley code. Invoke echoes the request's data back in a response envelope.
// Stream sends `count` StreamResponse messages, each around a `bytes`-character
// task_llm_stream event built on the spot, then a final one.
// raw-grpc.mjs [count] [bytes]
import { createServer } from 'node:http2';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { SvcTransport } from '../../dist/generated/proto/svc/transport/v1/transport_pb.js';
import { deltaText, wireEvent } from './stream-handler.mjs';

const count = Number(process.argv[2] ?? 20000);
const delta = deltaText(Number(process.argv[3] ?? 1024));

const handler = connectNodeAdapter({
  grpc: true,
  grpcWeb: false,
  connect: false,
  jsonOptions: { ignoreUnknownFields: true },
  routes: (router) =>
    router.service(SvcTransport, {
      invoke: (request) => ({ id: request.id, ok: true, result: request.data, final: true }),
      async *stream(request) {
        // The task id, read straight from the google.protobuf.Value tree of `data`.
        const taskId = request.data?.kind.value?.fields?.id?.kind.value ?? request.id;
        for (let i = 0; i < count; i++) {
          yield { id: request.id, ok: true, result: fromJson(ValueSchema, wireEvent(delta, taskId)), final: false };
        }
        yield {
          id: request.id,
          ok: true,
          result: fromJson(ValueSchema, { type: 'task_completed', task_id: taskId }),
          final: true,
        };
      },
    }),
});

const server = createServer(handler);
server.listen(0, '127.0.0.1', () => console.log(`ready http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
