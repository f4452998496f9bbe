// The worker thread behind off-thread-json.ts: it turns a large body's bytes into a value
// exactly as the main thread would (UTF-8, JSON.parse, the nesting check) and posts back the
// value or why there is none. Kept to the few modules it needs, so it starts quickly.
import { parentPort } from 'node:worker_threads';
import { jsonValueTooDeep } from './json-depth.js';
import { describeJsonSyntaxError } from './json-syntax.js';
import type { JsonDecodeJob, JsonDecodeResult } from './json-decode-job.js';

parentPort!.on('message', (job: JsonDecodeJob) => {
  parentPort!.postMessage(decode(job));
});

function decode(job: JsonDecodeJob): JsonDecodeResult {
  const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
  if (job.blankIsNothing && text.trim() === '') return { id: job.id, kind: 'value', value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      id: job.id,
      kind: 'invalid_json',
      located: describeJsonSyntaxError(text, error),
      parserMessage: error instanceof Error ? error.message : String(error),
    };
  }
  if (job.checkDepth && jsonValueTooDeep(value)) return { id: job.id, kind: 'too_deep' };
  return { id: job.id, kind: 'value', value };
}
