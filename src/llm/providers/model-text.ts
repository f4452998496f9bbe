// A model step's events read as plain text: the LanguageModel `complete` and `stream` every
// provider offers on top of its `step`.
import type { ModelEvent } from '../language-model.js';

/** The whole answer text of one step. */
export async function answerText(events: AsyncIterable<ModelEvent>): Promise<string> {
  let text = '';
  for await (const event of events) if (event.type === 'text') text += event.delta;
  return text;
}

/** The step's text as it arrives, delta by delta. */
export async function* textDeltas(events: AsyncIterable<ModelEvent>): AsyncIterable<string> {
  for await (const event of events) if (event.type === 'text') yield event.delta;
}
