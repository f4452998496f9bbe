// A card read over https whose gRPC interface is written `grpc://host:port`: the outbound client
// must not send its credentials to that port in clear. The peer here is a real https card server
// and a real plaintext grpc-js server on the card's host that records what each call carries.
// Before, the client took the written scheme at its word and the plaintext server read the API
// key; now the call is made over TLS, which a plaintext server cannot answer, and it reads nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { SendMessageResponseSchema, TaskState } from '../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { hasOpenssl, makeServerCertificate } from '../support/certificates.js';

const KEY = 'grpc-interface-key-0001';

test('an https card with a grpc:// interface: the call goes out over TLS, and no API key reaches the plaintext port', {
  skip: !hasOpenssl() && 'openssl is not installed',
}, async (t) => {
  const certificate = makeServerCertificate();
  t.after(() => certificate.remove());

  // The plaintext gRPC server on the card's host: it answers SendMessage with a completed task
  // and remembers the API key of every call it reads.
  const seenKeys: string[] = [];
  const answer = Buffer.from(
    toBinary(
      SendMessageResponseSchema,
      create(SendMessageResponseSchema, {
        payload: { case: 'task', value: { id: 'remote-1', contextId: 'ctx-1', status: { state: TaskState.COMPLETED } } },
      }),
    ),
  );
  const plain = new grpc.Server();
  plain.addService(
    {
      SendMessage: {
        path: '/lf.a2a.v1.A2AService/SendMessage',
        requestStream: false,
        responseStream: false,
        requestSerialize: (value: Buffer) => value,
        requestDeserialize: (bytes: Buffer) => bytes,
        responseSerialize: (value: Buffer) => value,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    },
    {
      SendMessage: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        seenKeys.push(String(call.metadata.get('x-api-key')[0] ?? ''));
        callback(null, answer);
      },
    },
  );
  const grpcPort = await new Promise<number>((resolve, reject) =>
    plain.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
  t.after(() => plain.forceShutdown());

  // The card, over https, on the same host.
  const card = {
    name: 'tls card',
    description: 'a card served over https',
    version: '1.0.0',
    supportedInterfaces: [{ url: `grpc://127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const cardServer = createServer(
    { cert: readFileSync(certificate.server.certfile), key: readFileSync(certificate.server.keyfile) },
    (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(card));
    },
  );
  await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => cardServer.close(() => resolve())));
  const cardUrl = `https://127.0.0.1:${(cardServer.address() as AddressInfo).port}`;

  const client = new AgentClient(cardUrl, {
    protocol: 'a2a',
    auth: { apiKey: KEY },
    tls: { cafile: certificate.cafile },
  });
  t.after(() => client.close());
  // A TLS handshake with a plaintext server fails: the call does not go through.
  const sent = await client.sendMessage('hello').then(
    () => 'answered',
    () => 'refused',
  );
  assert.deepEqual(seenKeys, [], 'the plaintext port never read a call, nor the key');
  assert.equal(sent, 'refused');
  const peer = await client.a2a();
  assert.deepEqual(await peer.binding(), { binding: 'GRPC', url: `grpcs://127.0.0.1:${grpcPort}`, streaming: false });
});
