// What the A2A request handler needs from whatever runs tasks: run one to its end (at once, or
// as a stream of its events), and cancel one.
// The agent server hands its engine in as this interface when it builds the handler, so a2a
// depends on two methods rather than on the agent folder that composes it.
import type { CancelRequest, Task } from '../../../generated/types/index.js';
import type { PreEncoded } from '../../core/json/encoded.js';
import type { RequestContext, StreamItem } from '../../transport/endpoint.js';

export interface TaskRunner {
  /** Runs a task to its end; resolves with the finished task (its `value`) and its JSON. */
  submit(task: Task, request: RequestContext): Promise<PreEncoded>;
  /**
   * Runs a task and yields its events (native StreamEvents); the last, `task_completed`, holds
   * the finished task. Stopping the reading cancels the run.
   */
  stream(task: Task, request: RequestContext): AsyncIterableIterator<StreamItem>;
  /**
   * Cancels a task the runner knows, for the principal that submitted it, and returns it as
   * canceled; throws an `EndpointError` `not_found` for any other id.
   */
  cancel(request: CancelRequest, principal: string | null): Task;
}
