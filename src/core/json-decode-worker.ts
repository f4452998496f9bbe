// The worker thread behind off-thread-json.ts: it turns a large body's bytes into a value
// exactly as the main thread would (decode-json-bytes.ts) and posts back the value or why
// there is none. Kept to the few modules it needs, so it starts quickly.
import { parentPort } from 'node:worker_threads';
import { decodeJsonBytes } from './decode-json-bytes.js';
import type { JsonDecodeJob, WorkerAnswer } from './json-decode-job.js';

parentPort!.on('message', (job: JsonDecodeJob) => {
  const result: WorkerAnswer = decodeJsonBytes(job);
  try {
    parentPort!.postMessage(result);
  } catch {
    // Copying a value nested thousands of levels deep exhausts the stack (the serializer
    // recurses): the bytes go back instead, and the main thread decodes them itself.
    const returned: WorkerAnswer = { id: job.id, kind: 'unsent', bytes: job.bytes };
    parentPort!.postMessage(returned, [job.bytes.buffer as ArrayBuffer]);
  }
});
