// Turns the generated agent operation table plus a handler implementation into the endpoint
// table a transport serves, keeping only the operations available on that transport. Task
// submission and streams go straight to the engine, which answers in the wire's terms (the
// task's JSON made once, the stream with its closing marker).
import { agentOperations } from '../../generated/operations/agent.js';
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { AgentHandlers } from '../../generated/handlers/agent.js';
import type { Task } from '../../generated/types/index.js';
import { PreEncoded } from '../core/json/encoded.js';
import { isTerminal } from '../core/task-state.js';
import { routeKey, type Endpoint, type RequestContext } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import type { Transport } from '../transport/transport.js';
import { taskCompletedEvent } from './task-completed-event.js';
import type { TaskEngine } from './task-engine.js';

export interface AvailabilityFacts {
  readonly transport: Transport;
  readonly hasLlm: boolean;
  /** Tasks are answered by the agent's model (no handler of the author's): they are model-backed. */
  readonly tasksUseModel?: boolean;
}

function isAvailable(spec: OperationSpec, facts: AvailabilityFacts): boolean {
  switch (spec.availability) {
    case 'always':
      return true;
    case 'streaming-transport':
      return facts.transport.supports('streaming');
    case 'llm':
      return facts.hasLlm;
    case 'html-transport':
      return facts.transport.supports('pages');
    case 'a2a':
      // The A2A 1.0 boundary mounts its own routes when it is switched on.
      return false;
  }
}

/** The agent's endpoint table for one transport; tasks arrive freshly decoded, so the engine may own them. */
export function buildAgentEndpoints(
  handlers: AgentHandlers<RequestContext>,
  engine: TaskEngine,
  facts: AvailabilityFacts,
): Map<string, Endpoint> {
  const table = new Map<string, Endpoint>();
  for (const spec of Object.values(agentOperations) as OperationSpec[]) {
    if (!isAvailable(spec, facts)) continue;
    const name = spec.name as keyof AgentHandlers;
    let endpoint: Endpoint;
    if (spec.streaming) {
      endpoint = { spec, stream: (data, context) => engine.stream(data as Task, context) };
    } else if (spec.name === 'sendTask') {
      // A task that waits for input is not an answer to replay: its follow-up, sent with the
      // same id and the user's reply, must run.
      // It is also what a stream falls back to where there is no stream endpoint.
      endpoint = {
        spec,
        unary: (data, context) => engine.submit(data as Task, context),
        replayable: isFinishedTask,
        finalEvent: (answer) => taskCompletedEvent(answer as Task),
      };
    } else if (spec.name === 'cancelTask') {
      // A retry of a cancel whose answer was lost gets that answer again. But the answer
      // describes the task at that moment, and a task canceled while waiting for input can run
      // again when the user answers: a later cancel with the same key acts first, and only
      // when nothing is active any more (404) is the kept answer replayed.
      endpoint = {
        spec,
        unary: (data, context) => settled(() => handlers.cancelTask(data as never, context)),
        replayWhen: isNotFound,
      };
    } else if (spec.request || spec.query) {
      const method = handlers[name] as (request: unknown, context: RequestContext) => unknown;
      endpoint = { spec, unary: (data, context) => settled(() => method.call(handlers, data, context)) };
    } else {
      const method = handlers[name] as (context: RequestContext) => unknown;
      endpoint = { spec, unary: (_data, context) => settled(() => method.call(handlers, context)) };
    }
    // Work that waits on the model gets the model's own bound (Endpoint.modelBacked).
    const modelBacked = spec.availability === 'llm' || (facts.tasksUseModel === true && TASK_ROUTES.has(spec.name));
    table.set(routeKey(spec.method, spec.path), modelBacked ? { ...endpoint, modelBacked } : endpoint);
  }
  return table;
}

/** The operations that run a task through the handler. */
const TASK_ROUTES: ReadonlySet<string> = new Set(['sendTask', 'streamTask']);

/** A cancel that found nothing active to act on. */
function isNotFound(error: unknown): boolean {
  return error instanceof EndpointError && error.code === 'not_found';
}

function isFinishedTask(result: unknown): boolean {
  const task = result instanceof PreEncoded ? result.value : result;
  const state = (task as Task | null)?.state;
  return state !== undefined && isTerminal(state);
}

/**
 * The handler's answer as a promise, a synchronous throw included. Not an async wrapper: one
 * that returns the handler's own promise costs the request extra turns of the event loop.
 */
function settled(run: () => unknown): Promise<unknown> {
  try {
    const result = run();
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.reject(error);
  }
}
