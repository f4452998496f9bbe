// The gRPC column of the binding-equivalence table (test/a2a/binding-columns.ts on the HTTP+JSON
// branch: one column per binding, the same scenarios over each). It starts an agent on the grpc
// transport with `a2a: true` and calls lf.a2a.v1.A2AService through connect-es: the request is
// the A2A request message in ProtoJSON, read with the method's input schema; the answer is the
// response message back in ProtoJSON, and a failure its ErrorInfo reason and field. The types are
// structural so the column fits that table as it is.
//
// Binary protobuf cannot say two things JSON can, and the column is plain about both: a list or
// string left empty reads back as absent, so ListTasks' answer gets back what JSON-RPC
// always writes (`tasks` [], `nextPageToken` "", and `artifacts` [] on each task when they were asked for);
// and a request that is no message of its type (an unknown field, a wrong JSON type) cannot be
// sent at all, so such a scenario fails here with NotExpressible rather than with a made-up answer.
import { fromJson, toJson, type DescMethodUnary, type JsonValue } from '@bufbuild/protobuf';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ErrorInfoSchema } from '../../../generated/proto/google/rpc/error_details_pb.js';
import { A2AService } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { AgentServerOptions } from '../../../src/agent/agent-server.js';
import type { AgentHandler } from '../../../src/agent/handler.js';
import { startGrpcA2aAgent } from './support.js';

type Outcome = { readonly ok: any } | { readonly error: { readonly reason: string; readonly field?: string } };
type A2aCaller = (method: string, request: Record<string, unknown>) => Promise<Outcome>;

/** JSON-RPC's pointers start at its `params` member; the table's start at the request message. */
const FIELD_PREFIX = '/params';

export const grpcColumn = {
  name: 'gRPC',
  async open(
    t: { after(fn: () => unknown): void },
    handler: AgentHandler,
    options: Partial<AgentServerOptions> = {},
  ): Promise<A2aCaller> {
    const { target } = await startGrpcA2aAgent(t, { handler, ...options });
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${target}` })) as unknown as Record<
      string,
      (request: unknown, options: unknown) => Promise<any>
    >;
    return async (name, request) => {
      const method = A2AService.methods.find((candidate) => candidate.name === name) as DescMethodUnary | undefined;
      if (!method) throw new Error(`no unary method ${name} in lf.a2a.v1.A2AService`);
      try {
        let message: unknown;
        try {
          message = fromJson(method.input, request as JsonValue);
        } catch (error) {
          throw new NotExpressible(`${name} ${JSON.stringify(request)}: ${(error as Error).message}`);
        }
        const answer = await client[method.localName]!(message, { headers: { 'a2a-version': '1.0' } });
        const json = toJson(method.output, answer) as any;
        if (name === 'ListTasks') {
          json.tasks ??= [];
          json.nextPageToken ??= '';
          if (request.includeArtifacts === true) for (const task of json.tasks ?? []) task.artifacts ??= [];
        }
        return { ok: json };
      } catch (error) {
        if (error instanceof NotExpressible) throw error;
        const [info] = ConnectError.from(error).findDetails(ErrorInfoSchema);
        const field = info?.metadata.field;
        return {
          error: {
            reason: String(info?.reason),
            ...(field !== undefined && {
              field: field.startsWith(FIELD_PREFIX) ? field.slice(FIELD_PREFIX.length) || '/' : field,
            }),
          },
        };
      }
    };
  },
};

/** A scenario whose request binary protobuf cannot carry. */
export class NotExpressible extends Error {
  override readonly name = 'NotExpressible';
}
