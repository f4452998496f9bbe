// Large JSON texts decoded on a worker thread. UTF-8 decoding and JSON.parse of a 16 MiB body
// hold the thread that runs them for tens of milliseconds (more on a busy machine), and on the
// main thread every other client waits that long. Here the bytes go to a worker (their buffer
// transferred, not copied), which decodes, parses and checks the nesting exactly as the main
// thread does (json-decode-worker.ts) and posts back the value or why there is none; receiving
// the value costs the main thread a copy of it (a memcpy for a tree dominated by one long
// string; a value nested too deeply to copy comes back as its bytes, decoded here). Only large payloads come here (large-payload-turns.ts); small ones are parsed in
// place, where a round trip to a worker would cost more than the parse.
//
// The workers start on the first job, never keep the process alive (unref) and end after a
// second without work, so a stopped server leaves none behind and no one has to close them.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { decodeJsonBytes } from './decode-json-bytes.js';
import type { JsonDecodeJob, JsonDecodeResult, WorkerAnswer } from './json-decode-job.js';

export type { JsonDecodeResult } from './json-decode-job.js';

/** At most this many decoding workers at once: one keeps the main thread free on two cores. */
export const JSON_DECODE_WORKERS = 1;

/** A worker with no job for this long ends. */
const IDLE_MS = 1000;

// The worker script beside this module, in whichever form this module runs (.ts under tsx, .js built).
const EXTENSION = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./json-decode-worker${EXTENSION}`, import.meta.url);

/** What a worker that failed leaves its jobs with: no stack, path or cause reaches a client. */
const WORKER_FAILED = 'the JSON decoding worker failed';

interface Pending {
  readonly job: JsonDecodeJob;
  readonly resolve: (result: JsonDecodeResult) => void;
  readonly reject: (error: Error) => void;
}

interface DecodeWorker {
  readonly worker: Worker;
  /** Every job given to it, waiting or in hand, by id. */
  readonly jobs: Map<number, Pending>;
  /**
   * The jobs waiting for the one in hand. A worker holds one job at a time: node delivers all
   * the messages waiting on a port in one go, so results sent back to back would be received
   * (each a copy of a large value) in one turn of the main thread, not one turn each.
   */
  readonly waiting: JsonDecodeJob[];
  idle: NodeJS.Timeout | null;
}

/** The workers taking jobs. */
const workers: DecodeWorker[] = [];
/** Every worker thread not yet exited, those ending included. */
let running = 0;
let nextJob = 0;
let whenNone: Array<() => void> = [];

export interface DecodeOptions {
  /** Refuse nesting past MAX_JSON_DEPTH (result `too_deep`), as a request body is checked. */
  readonly checkDepth: boolean;
  /** Text that is only whitespace decodes to `undefined`. */
  readonly blankIsNothing?: boolean;
}

/**
 * Decodes UTF-8 JSON on a worker. The bytes are handed over: when they own their whole
 * buffer it is moved to the worker (and left empty here), otherwise their span is copied first.
 * Rejects if the worker fails (it ran out of memory, say); throws if no worker can be started.
 */
export function decodeJsonOffThread(bytes: Uint8Array, options: DecodeOptions): Promise<JsonDecodeResult> {
  const target = pickWorker();
  const id = nextJob++;
  const owned = ownsItsBuffer(bytes) ? bytes : new Uint8Array(bytes);
  const job: JsonDecodeJob = {
    id,
    bytes: owned,
    checkDepth: options.checkDepth,
    blankIsNothing: options.blankIsNothing ?? false,
  };
  return new Promise((resolve, reject) => {
    target.jobs.set(id, { job, resolve, reject });
    if (target.idle) {
      clearTimeout(target.idle);
      target.idle = null;
    }
    if (target.jobs.size === 1) gaveOrFailed(target, job);
    else target.waiting.push(job);
  });
}

/** How many decoding workers are running. */
export function jsonDecodeWorkers(): number {
  return running;
}

/** Resolves once no decoding worker is running (they end a second after their last job). */
export function jsonDecodeWorkersEnded(): Promise<void> {
  if (running === 0) return Promise.resolve();
  return new Promise((resolve) => whenNone.push(resolve));
}

function ownsItsBuffer(bytes: Uint8Array): boolean {
  return bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

/** The worker with the fewest jobs, or a new one while there are fewer than the cap. */
function pickWorker(): DecodeWorker {
  let least: DecodeWorker | undefined;
  for (const candidate of workers) if (!least || candidate.jobs.size < least.jobs.size) least = candidate;
  if (least && (least.jobs.size === 0 || workers.length >= JSON_DECODE_WORKERS)) return least;
  return startWorker();
}

// No node options from the process: its preloads (`--import` of tracing, of a watcher that
// exits with stdin) have no business in the worker, and some would end it.
const OPTIONS = { execArgv: [] };

function newWorker(): Worker {
  if (EXTENSION !== '.ts') return new Worker(WORKER_URL, OPTIONS);
  // Run from the TypeScript sources (tests, tsx): node 20 does not carry tsx's loader into a
  // worker, so the worker registers it before loading its script.
  const load = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(load, { ...OPTIONS, eval: true });
}

function startWorker(): DecodeWorker {
  const entry: DecodeWorker = { worker: newWorker(), jobs: new Map(), waiting: [], idle: null };
  const { worker, jobs } = entry;
  worker.unref();
  worker.on('message', (answer: WorkerAnswer) => {
    const pending = jobs.get(answer.id);
    jobs.delete(answer.id);
    // A value too deeply nested to copy (rare, and refused for its depth anyway) is decoded here.
    if (answer.kind === 'unsent') pending?.resolve(decodeJsonBytes({ ...pending.job, bytes: answer.bytes }));
    else pending?.resolve(answer);
    let next = entry.waiting.shift();
    while (next && !gaveOrFailed(entry, next)) next = entry.waiting.shift();
    if (!next) entry.idle = setTimeout(() => endIdle(entry), IDLE_MS).unref();
  });
  // A worker that fails takes its jobs with it; the next job starts a fresh one.
  worker.on('error', (error) => {
    failJobs(entry, error);
    forget(entry);
  });
  worker.on('exit', () => {
    failJobs(entry, null);
    if (entry.idle) clearTimeout(entry.idle);
    forget(entry);
    running--;
    if (running === 0) {
      const waiting = whenNone;
      whenNone = [];
      for (const resolve of waiting) resolve();
    }
  });
  workers.push(entry);
  running++;
  return entry;
}

/** Ends a worker that has had no job for IDLE_MS; it takes none from now on. */
function endIdle(entry: DecodeWorker): void {
  forget(entry);
  void entry.worker.terminate();
}

function give(entry: DecodeWorker, job: JsonDecodeJob): void {
  entry.worker.postMessage(job, [job.bytes.buffer as ArrayBuffer]);
}

/**
 * give() from the worker's message handler, where a throw would escape: a job that cannot be
 * handed over fails alone (false), and the caller moves on to the next.
 */
function gaveOrFailed(entry: DecodeWorker, job: JsonDecodeJob): boolean {
  try {
    give(entry, job);
    return true;
  } catch (error) {
    const pending = entry.jobs.get(job.id);
    entry.jobs.delete(job.id);
    pending?.reject(error as Error);
    return false;
  }
}

function forget(entry: DecodeWorker): void {
  const at = workers.indexOf(entry);
  if (at >= 0) workers.splice(at, 1);
}

function failJobs(entry: DecodeWorker, cause: Error | null): void {
  if (entry.jobs.size === 0) return;
  const error = new Error(WORKER_FAILED, { cause });
  for (const pending of entry.jobs.values()) pending.reject(error);
  entry.jobs.clear();
  entry.waiting.length = 0;
}
