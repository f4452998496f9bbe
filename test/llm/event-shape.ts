// The shape of a task stream as a list of short strings, for asserting event order:
// `status:working`, `llm:1:Hel` (a text chunk of step 1), `llm-final:1:tool_calls`,
// `message:assistant:tool_call`, `tool_call:get_weather`, `tool_result:ok` / `tool_result:error`,
// `artifact:result`, `completed:completed`. streamShape joins the text chunks of a step that
// follow each other: how a model's text is cut into events depends on how its bytes arrived.
import type { StreamEvent } from '../../generated/types/index.js';

export function streamShape(events: readonly StreamEvent[]): string[] {
  const shape: string[] = [];
  let last: StreamEvent | null = null;
  for (const event of events) {
    const joins =
      event.type === 'task_llm_stream' &&
      !event.final &&
      last?.type === 'task_llm_stream' &&
      !last.final &&
      last.step === event.step;
    if (joins) shape[shape.length - 1] += event.delta;
    else shape.push(eventShape(event));
    last = event;
  }
  return shape;
}

export function eventShape(event: StreamEvent): string {
  switch (event.type) {
    case 'task_status':
      return `status:${event.state}`;
    case 'task_llm_stream':
      return event.final ? `llm-final:${event.step}:${event.finish_reason}` : `llm:${event.step}:${event.delta}`;
    case 'task_message':
      return `message:${event.message.role}:${event.message.parts.map((part) => part.type).join(',')}`;
    case 'task_tool_call':
      return `tool_call:${event.tool_call.name}`;
    case 'task_tool_result':
      return `tool_result:${event.tool_result.error === null ? 'ok' : 'error'}`;
    case 'task_artifact':
      return `artifact:${event.artifact.kind}`;
    case 'task_completed':
      return `completed:${event.state}`;
  }
}

/** The events of one weather question answered with one tool call (see weatherTurns). */
export const WEATHER_STREAM: readonly string[] = [
  'status:working',
  'llm:1:Let me check.',
  'llm-final:1:tool_calls',
  'message:assistant:text,tool_call',
  'tool_call:get_weather',
  'tool_result:ok',
  'message:agent:tool_result',
  'llm:2:Sunny, 21 degrees.',
  'llm-final:2:stop',
  'message:assistant:text',
  'artifact:result',
  'completed:completed',
];
