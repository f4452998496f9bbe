// What both provider test files share: fast retries, a short conversation, reading a step's
// events to the end, and the ModelError a failed step ends with.
import assert from 'node:assert/strict';
import type { ChatTurn, ModelEvent } from '../../../src/llm/language-model.js';
import { ModelError } from '../../../src/llm/model-error.js';

/** Retries that do not slow the tests: three attempts, a millisecond or two apart. */
export const FAST_RETRY = { maxAttempts: 3, initialBackoff: 0.001, maxBackoff: 0.002, jitter: 0 };

export const hello: ChatTurn[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Say hello' },
];

export async function collect(source: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of source) events.push(event);
  return events;
}

/** The ModelError `work` fails with; fails the test if it succeeds or fails otherwise. */
export async function failureOf(work: Promise<unknown>): Promise<ModelError> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the step to fail');
}
