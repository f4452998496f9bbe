// What the model loop hands to its observer while it runs: stream events (model text, tool
// calls, tool results) and the messages it wants kept. The loop owns these shapes; the agent's
// handler types (agent/handler.ts) reuse them, so a handler's `emit` and the loop speak one
// vocabulary without llm/ reaching up into agent/.
import type { Message, TaskLlmStreamEvent, TaskToolCallEvent, TaskToolResultEvent } from '../../generated/types/index.js';

/** A stream event before its task id and time are stamped on it (the task's runner does that). */
export type LoopEvent =
  | Omit<TaskLlmStreamEvent, 'task_id' | 'timestamp'>
  | Omit<TaskToolCallEvent, 'task_id' | 'timestamp'>
  | (Omit<TaskToolResultEvent, 'task_id' | 'timestamp' | 'tool_result'> & { tool_result: ToolOutput });

/** Tool output in any of the forms tools tend to produce; it is sent as `call_id`, `result`, `error`. */
export interface ToolOutput {
  readonly call_id: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** A message to keep: text alone, or a message without id and timestamp (the keeper fills them in). */
export type LoopMessage = string | (Omit<Message, 'id' | 'role'> & Partial<Pick<Message, 'id' | 'role'>>);
