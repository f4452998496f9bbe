// One decoding of JSON bytes, the same wherever it runs: on a decoding worker, or on the main
// thread when the worker cannot send its value back (off-thread-json.ts).
import type { JsonDecodeJob, JsonDecodeResult } from './json-decode-job.js';
import { jsonValueTooDeep } from './json/depth.js';
import { describeJsonSyntaxError } from './json/syntax.js';

/** UTF-8, JSON.parse and (when asked) the nesting check, as a request body is read. */
export function decodeJsonBytes(job: JsonDecodeJob): JsonDecodeResult {
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
