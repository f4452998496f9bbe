// The HTTP+JSON binding's routes: each operation of the agent's manifest (schemas/operations/
// agent.json, the `a2aRest...` rows) with the A2A method it carries, the request message its
// fields make, where the fields come from (a POST's body, a GET's or DELETE's query string; the
// path's named parts in both) and the request handler's method that answers it.
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import {
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { RequestContext } from '../../transport/endpoint.js';
import type { A2aRequestHandler, StreamResponseJson } from '../handler/request-handler.js';

/** One route: what a request to it decodes into, and who answers. */
export interface RestRoute {
  readonly spec: OperationSpec;
  /** The A2A method, for span names and docs. */
  readonly method: string;
  readonly schema: DescMessage;
  /** Where the fields other than the path's come from. */
  readonly fields: 'body' | 'query';
  /** A unary answer (a ProtoJSON object), or a stream of StreamResponse objects. */
  readonly run: (request: never, context: RequestContext) => Promise<unknown> | AsyncIterable<StreamResponseJson>;
}

/** The routes, built once per handler. */
export function restRoutes(handler: A2aRequestHandler): readonly RestRoute[] {
  const route = <D extends DescMessage>(
    name: keyof typeof agentOperations,
    method: string,
    schema: D,
    fields: 'body' | 'query',
    run: (request: MessageShape<D>, context: RequestContext) => Promise<unknown> | AsyncIterable<StreamResponseJson>,
  ): RestRoute => ({ spec: agentOperations[name] as OperationSpec, method, schema, fields, run: run as RestRoute['run'] });
  const subscribe = (request: MessageShape<typeof SubscribeToTaskRequestSchema>, context: RequestContext) =>
    handler.subscribeToTask(request, context);
  return [
    route('a2aRestSendMessage', 'SendMessage', SendMessageRequestSchema, 'body', (r, c) => handler.sendMessage(r, c)),
    route('a2aRestSendStreamingMessage', 'SendStreamingMessage', SendMessageRequestSchema, 'body', (r, c) =>
      handler.sendStreamingMessage(r, c),
    ),
    route('a2aRestGetTask', 'GetTask', GetTaskRequestSchema, 'query', (r, c) => handler.getTask(r, c)),
    route('a2aRestListTasks', 'ListTasks', ListTasksRequestSchema, 'query', (r, c) => handler.listTasks(r, c)),
    route('a2aRestCancelTask', 'CancelTask', CancelTaskRequestSchema, 'body', (r, c) => handler.cancelTask(r, c)),
    route('a2aRestSubscribeToTask', 'SubscribeToTask', SubscribeToTaskRequestSchema, 'body', subscribe),
    route('a2aRestSubscribeToTaskByGet', 'SubscribeToTask', SubscribeToTaskRequestSchema, 'query', subscribe),
    route(
      'a2aRestCreateTaskPushNotificationConfig',
      'CreateTaskPushNotificationConfig',
      TaskPushNotificationConfigSchema,
      'body',
      (r, c) => handler.createTaskPushNotificationConfig(r, c),
    ),
    route(
      'a2aRestListTaskPushNotificationConfigs',
      'ListTaskPushNotificationConfigs',
      ListTaskPushNotificationConfigsRequestSchema,
      'query',
      (r, c) => handler.listTaskPushNotificationConfigs(r, c),
    ),
    route(
      'a2aRestGetTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      GetTaskPushNotificationConfigRequestSchema,
      'query',
      (r, c) => handler.getTaskPushNotificationConfig(r, c),
    ),
    route(
      'a2aRestDeleteTaskPushNotificationConfig',
      'DeleteTaskPushNotificationConfig',
      DeleteTaskPushNotificationConfigRequestSchema,
      'query',
      (r, c) => handler.deleteTaskPushNotificationConfig(r, c),
    ),
    route('a2aRestGetExtendedAgentCard', 'GetExtendedAgentCard', GetExtendedAgentCardRequestSchema, 'query', (r, c) =>
      handler.getExtendedAgentCard(r, c),
    ),
  ];
}
