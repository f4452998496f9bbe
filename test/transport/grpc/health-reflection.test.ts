// The standard health service and server reflection, called by @grpc/grpc-js clients built
// by proto-loader from the project's copies of the standard .proto files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { status as GrpcCode } from '@grpc/grpc-js';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import {
  agentEndpoints,
  insecure,
  keyAuthenticator,
  loadPackage,
  serveGrpc,
  statusOf,
  target,
  unaryCall,
} from '../../support/grpc-peers.js';

function healthClient(t: { after(fn: () => unknown): void }, url: string): any {
  const pkg = loadPackage(['grpc/health/v1/health.proto']);
  const client = new pkg.grpc.health.v1.Health(target(url), insecure());
  t.after(() => client.close());
  return client;
}

const SERVICE = 'svc.transport.v1.SvcTransport';

describe('grpc.health.v1.Health', () => {
  it('Check: the server and SvcTransport are SERVING; an unknown service is NOT_FOUND', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = healthClient(t, server.url);
    assert.deepEqual(await unaryCall(client, 'Check', { service: '' }), { status: 'SERVING' });
    assert.deepEqual(await unaryCall(client, 'Check', { service: SERVICE }), { status: 'SERVING' });
    const error = await statusOf(unaryCall(client, 'Check', { service: 'no.such.Service' }));
    assert.equal(error.code, GrpcCode.NOT_FOUND);
  });

  it('List: every known service with its status', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const response = await unaryCall(healthClient(t, server.url), 'List', {});
    assert.deepEqual(response.statuses, { '': { status: 'SERVING' }, [SERVICE]: { status: 'SERVING' } });
  });

  it('Watch sees SERVING, then NOT_SERVING when the transport stops, then the end', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = healthClient(t, server.url);
    const call = client.Watch({ service: SERVICE });
    const seen: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      call.on('data', (message: { status: string }) => {
        seen.push(message.status);
        if (message.status === 'SERVING') void server.stop();
      });
      call.on('end', () => resolve());
      call.on('error', reject);
    });
    await ended;
    assert.deepEqual(seen, ['SERVING', 'NOT_SERVING']);
  });

  it('Watch of an unknown service sends SERVICE_UNKNOWN and stays open', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const call = healthClient(t, server.url).Watch({ service: 'no.such.Service' });
    call.on('error', () => undefined);
    const first = await new Promise<{ status: string }>((resolve) => call.once('data', resolve));
    assert.equal(first.status, 'SERVICE_UNKNOWN');
    call.cancel();
  });

  it('is reachable without credentials on a server that requires them', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { authenticator: keyAuthenticator });
    assert.deepEqual(await unaryCall(healthClient(t, server.url), 'Check', { service: '' }), { status: 'SERVING' });
  });

  it('enableHealth false: the service is UNIMPLEMENTED', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { grpc: { enableHealth: false } });
    const error = await statusOf(unaryCall(healthClient(t, server.url), 'Check', { service: '' }));
    assert.equal(error.code, GrpcCode.UNIMPLEMENTED);
  });
});

for (const version of ['v1', 'v1alpha'] as const) {
  describe(`grpc.reflection.${version}.ServerReflection`, () => {
    function reflectionClient(t: { after(fn: () => unknown): void }, url: string): any {
      const pkg = loadPackage([`grpc/reflection/${version}/reflection.proto`]);
      const client = new pkg.grpc.reflection[version].ServerReflection(target(url), insecure());
      t.after(() => client.close());
      return client;
    }

    /** Sends requests on one bidirectional stream and collects one answer per request. */
    async function ask(client: any, requests: object[]): Promise<any[]> {
      const call = client.ServerReflectionInfo();
      const answers: any[] = [];
      const done = new Promise<void>((resolve, reject) => {
        call.on('data', (answer: any) => answers.push(answer));
        call.on('end', () => resolve());
        call.on('error', reject);
      });
      for (const request of requests) call.write({ host: 'localhost', ...request });
      call.end();
      await done;
      return answers;
    }

    const decode = (bytes: Buffer) => fromBinary(FileDescriptorProtoSchema, bytes);

    it('list_services names SvcTransport, Health and both reflection services', async (t) => {
      const server = await serveGrpc(t, agentEndpoints().endpoints);
      const [answer] = await ask(reflectionClient(t, server.url), [{ list_services: '' }]);
      assert.equal(answer.valid_host, 'localhost');
      assert.deepEqual(answer.list_services_response.service.map((service: { name: string }) => service.name).sort(), [
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
        SERVICE,
      ]);
    });

    it('file_containing_symbol returns the descriptor naming the service, with its imports', async (t) => {
      const server = await serveGrpc(t, agentEndpoints().endpoints);
      const [byService, byMethod, byMessage] = await ask(reflectionClient(t, server.url), [
        { file_containing_symbol: SERVICE },
        { file_containing_symbol: `${SERVICE}.Invoke` },
        { file_containing_symbol: 'svc.transport.v1.StreamResponse' },
      ]);
      const files = byService.file_descriptor_response.file_descriptor_proto.map(decode);
      assert.equal(files[0].name, 'svc/transport/v1/transport.proto');
      assert.equal(files[0].package, 'svc.transport.v1');
      const service = files[0].service.find((s: { name: string }) => s.name === 'SvcTransport');
      assert.deepEqual(
        service?.method.map((m: { name: string }) => m.name),
        ['Invoke', 'Stream'],
      );
      assert.ok(files.some((file: { name: string }) => file.name === 'google/protobuf/struct.proto'));
      const invokeRequest = files[0].messageType.find((m: { name: string }) => m.name === 'InvokeRequest');
      assert.equal(invokeRequest?.field.find((f: { name: string }) => f.name === 'idempotency_key')?.jsonName, 'idempotency_key');
      for (const answer of [byMethod, byMessage]) {
        assert.equal(decode(answer.file_descriptor_response.file_descriptor_proto[0]).name, 'svc/transport/v1/transport.proto');
      }
    });

    it('file_by_filename returns that file', async (t) => {
      const server = await serveGrpc(t, agentEndpoints().endpoints);
      const [answer] = await ask(reflectionClient(t, server.url), [{ file_by_filename: 'grpc/health/v1/health.proto' }]);
      const file = decode(answer.file_descriptor_response.file_descriptor_proto[0]);
      assert.equal(file.name, 'grpc/health/v1/health.proto');
      assert.equal(file.service[0]?.name, 'Health');
    });

    it('an unknown symbol or file gets an error_response with NOT_FOUND', async (t) => {
      const server = await serveGrpc(t, agentEndpoints().endpoints);
      const answers = await ask(reflectionClient(t, server.url), [
        { file_containing_symbol: 'no.such.Symbol' },
        { file_by_filename: 'no/such.proto' },
        { file_containing_extension: { containing_type: 'svc.transport.v1.InvokeRequest', extension_number: 100 } },
      ]);
      for (const answer of answers) {
        assert.equal(answer.message_response, 'error_response');
        assert.equal(answer.error_response.error_code, GrpcCode.NOT_FOUND);
      }
    });

    it('all_extension_numbers_of_type: an empty list for a known message', async (t) => {
      const server = await serveGrpc(t, agentEndpoints().endpoints);
      const [answer] = await ask(reflectionClient(t, server.url), [
        { all_extension_numbers_of_type: 'svc.transport.v1.InvokeRequest' },
      ]);
      assert.equal(answer.all_extension_numbers_response.base_type_name, 'svc.transport.v1.InvokeRequest');
      assert.deepEqual(answer.all_extension_numbers_response.extension_number ?? [], []);
    });

    it('is not listed and not served when enableReflection is false; Health is unlisted when off', async (t) => {
      const off = await serveGrpc(t, agentEndpoints().endpoints, { grpc: { enableReflection: false } });
      const error = await statusOf(ask(reflectionClient(t, off.url), [{ list_services: '' }]));
      assert.equal(error.code, GrpcCode.UNIMPLEMENTED);
      const noHealth = await serveGrpc(t, agentEndpoints().endpoints, { grpc: { enableHealth: false } });
      const [answer] = await ask(reflectionClient(t, noHealth.url), [{ list_services: '' }]);
      const names = answer.list_services_response.service.map((service: { name: string }) => service.name);
      assert.equal(names.includes('grpc.health.v1.Health'), false);
      assert.equal(names.includes(SERVICE), true);
    });
  });
}
