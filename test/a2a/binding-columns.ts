// The columns of the binding-equivalence table (binding-equivalence.test.ts): one per A2A
// binding parley serves. A column starts an agent that serves its binding and calls A2A methods
// through it, each with its request as the ProtoJSON object of the A2A request message, and
// reports what came back in one binding-neutral form: the answer's ProtoJSON object, or the
// error's ErrorInfo reason (and, for a bad field, the JSON pointer of the field in the request
// message). A new binding adds a column here (gRPC's is in grpc/binding-column.ts); the
// scenarios stay as they are.
import type { AgentServerOptions } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { grpcColumn } from './grpc/binding-column.js';
import { startA2aAgent } from './support.js';

type A2aMethod =
  | 'SendMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** What a call came back with, whatever the binding. */
export type Outcome = { readonly ok: any } | { readonly error: { readonly reason: string; readonly field?: string } };

/** Calls one method; `request` is the A2A request message in ProtoJSON. */
export type A2aCaller = (method: A2aMethod, request: Record<string, unknown>) => Promise<Outcome>;

type TestContext = { after(fn: () => unknown): void };

export interface BindingColumn {
  readonly name: string;
  /** Starts an agent serving this binding with `handler` (stopped when the test ends). */
  open(t: TestContext, handler: AgentHandler, options?: Partial<AgentServerOptions>): Promise<A2aCaller>;
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** An ErrorInfo as an Outcome's error (the field without the binding's own prefix, if any). */
function errorOutcome(info: any, fieldPrefix = ''): Outcome {
  const field = info?.metadata?.field as string | undefined;
  return {
    error: {
      reason: String(info?.reason),
      ...(field !== undefined && { field: field.startsWith(fieldPrefix) ? field.slice(fieldPrefix.length) || '/' : field }),
    },
  };
}

const jsonRpcColumn: BindingColumn = {
  name: 'JSON-RPC',
  async open(t, handler, options = {}) {
    const { url } = await startA2aAgent(t, { handler, ...options });
    let id = 0;
    return async (method, request) => {
      const response = await fetch(`${url}/`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: request }),
      });
      const answer: any = await response.json();
      // JSON-RPC's pointers start at its `params` member.
      return 'error' in answer ? errorOutcome(answer.error.data?.[0], '/params') : { ok: answer.result };
    };
  },
};

/** Where each method goes over HTTP+JSON: its HTTP method, path, and whether the rest is a body or a query. */
function restRequest(method: A2aMethod, request: Record<string, unknown>): { verb: string; path: string; body?: unknown } {
  const { tenant, ...fields } = request as Record<string, any>;
  const prefix = tenant ? `/${encodeURIComponent(tenant)}` : '';
  const take = (name: string) => {
    const value = fields[name];
    delete fields[name];
    return encodeURIComponent(String(value ?? ''));
  };
  const query = () => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) search.set(name, String(value));
    const text = search.toString();
    return text ? `?${text}` : '';
  };
  switch (method) {
    case 'SendMessage':
      return { verb: 'POST', path: `${prefix}/message:send`, body: fields };
    case 'GetTask': {
      const id = take('id');
      return { verb: 'GET', path: `${prefix}/tasks/${id}${query()}` };
    }
    case 'ListTasks':
      return { verb: 'GET', path: `${prefix}/tasks${query()}` };
    case 'CancelTask': {
      const id = take('id');
      return { verb: 'POST', path: `${prefix}/tasks/${id}:cancel`, body: fields };
    }
    case 'CreateTaskPushNotificationConfig': {
      const taskId = take('taskId');
      return { verb: 'POST', path: `${prefix}/tasks/${taskId}/pushNotificationConfigs`, body: fields };
    }
    case 'ListTaskPushNotificationConfigs': {
      const taskId = take('taskId');
      return { verb: 'GET', path: `${prefix}/tasks/${taskId}/pushNotificationConfigs${query()}` };
    }
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig': {
      const taskId = take('taskId');
      const id = take('id');
      const verb = method === 'GetTaskPushNotificationConfig' ? 'GET' : 'DELETE';
      return { verb, path: `${prefix}/tasks/${taskId}/pushNotificationConfigs/${id}${query()}` };
    }
    case 'GetExtendedAgentCard':
      return { verb: 'GET', path: `${prefix}/extendedAgentCard${query()}` };
  }
}

const restColumn: BindingColumn = {
  name: 'HTTP+JSON',
  async open(t, handler, options = {}) {
    const { url } = await startA2aAgent(t, { handler, ...options });
    return async (method, request) => {
      const { verb, path, body } = restRequest(method, request);
      const response = await fetch(`${url}/a2a/rest${path}`, {
        method: verb,
        headers: HEADERS,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer: any = await response.json();
      return response.ok ? { ok: answer } : errorOutcome(answer.error.details?.[0]);
    };
  },
};

/** Every binding parley serves, one column each. */
export const COLUMNS: readonly BindingColumn[] = [jsonRpcColumn, restColumn, grpcColumn];
