// bench/validate: how fast a typical 1 KB Task is checked by the standalone validator codegen
// emits (generated/validators, what parley runs), against ajv compiling the same native
// schemas at run time with the same options: the baseline, measured in the same process with
// rounds alternated. Also prints what the run-time compile costs (paid once per process by
// anyone who does not pre-compile) and how long codegen takes, timed as `codegen/main.ts
// --check`, which builds the whole generated tree in memory without writing it.
//
//   npm run bench:validate        (BENCH_ROUNDS, BENCH_ROUND_MS to change the defaults)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import _Ajv2020 from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import { validateTask } from '../generated/validators/index.js';
import { compiledValidators } from '../generated/validators/native.js';
import type { Task } from '../generated/types/index.js';

// CommonJS default exports, reached the same way under tsx and tsc.
const Ajv2020 = ((_Ajv2020 as unknown as { default?: unknown }).default ?? _Ajv2020) as typeof _Ajv2020.default;
const addFormats = ((_addFormats as unknown as { default?: unknown }).default ?? _addFormats) as typeof _addFormats.default;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 600);
const TASK_SCHEMA_ID = 'https://parley.dev/schemas/native/task.schema.json';

/** A task as it looks after an agent answered: three messages, one artifact, a state history. */
function typicalTask(): Task {
  const at = (second: number) => `2025-03-01T09:30:${String(second).padStart(2, '0')}Z`;
  const text = (content: string) => ({ type: 'text', content });
  return {
    id: 'task-7c1f0a9e-2b44-4d1e-9f3a-5e8b2c6d7a10',
    state: 'completed',
    messages: [
      { id: 'msg-1', role: 'user', parts: [text('Summarise the attached release notes in two sentences.')], timestamp: at(0) },
      { id: 'msg-2', role: 'agent', parts: [text('Reading the notes and drafting a summary now.')], timestamp: at(1) },
      {
        id: 'msg-3',
        role: 'agent',
        parts: [
          text('Version 2.4 adds streaming to every transport and halves cold-start time. Two deprecated flags are removed.'),
        ],
        timestamp: at(3),
      },
    ],
    artifacts: [
      {
        id: 'art-1',
        parts: [text('Version 2.4 adds streaming to every transport and halves cold-start time.')],
        metadata: {},
        timestamp: at(3),
        kind: 'result',
        name: 'summary',
        uri: null,
        media_type: 'text/plain',
        action_id: null,
      },
    ],
    metadata: {
      state_history: [
        { state: 'submitted', timestamp: at(0) },
        { state: 'working', timestamp: at(1) },
        { state: 'completed', timestamp: at(3) },
      ],
    },
    created_at: at(0),
  } as Task;
}

/** The same task broken in three places, to time the path that collects and reports errors. */
function brokenTask(task: Task): unknown {
  const copy = structuredClone(task) as unknown as Record<string, unknown> & { messages: Array<Record<string, unknown>> };
  copy.state = 'paused';
  copy.messages[1]!.role = 'robot';
  copy.created_at = 'yesterday';
  return copy;
}

function nativeSchemaFiles(): string[] {
  const files: string[] = [];
  for (const dir of ['schemas/native', 'generated/schemas/native']) {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      if (name.endsWith('.schema.json')) files.push(join(ROOT, dir, name));
    }
  }
  return files;
}

/** Validations per second over one round of about ROUND_MS. */
function round(check: (value: unknown) => boolean, value: unknown): number {
  const batch = 2_000;
  let count = 0;
  let sink = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < batch; i++) if (check(value)) sink++;
    count += batch;
    elapsed = performance.now() - started;
  } while (elapsed < ROUND_MS);
  if (sink < 0) console.log(sink); // keep the result observable
  return (count / elapsed) * 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Alternates the contenders round by round, after a warm-up of each; medians, in order. */
function compare(contenders: ReadonlyArray<(value: unknown) => boolean>, value: unknown): number[] {
  for (const check of contenders) round(check, value);
  const rates: number[][] = contenders.map(() => []);
  for (let i = 0; i < ROUNDS; i++) contenders.forEach((check, k) => rates[k]!.push(round(check, value)));
  return rates.map(median);
}

function codegenTime(): { ms: number; note: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'codegen/main.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
  const ms = performance.now() - started;
  const note =
    result.status === 0
      ? 'generated/ up to date'
      : `exit ${result.status}: ${(result.stderr || result.stdout).trim().split('\n')[0]}`;
  return { ms, note };
}

function format(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function main(): void {
  const task = typicalTask();
  const broken = brokenTask(task);
  const bytes = Buffer.byteLength(JSON.stringify(task));

  // The run-time baseline: ajv compiling the native schema set now, with codegen's options.
  const compileStarted = performance.now();
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  const files = nativeSchemaFiles();
  for (const file of files) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
  const ajvTask = ajv.getSchema(TASK_SCHEMA_ID);
  const compileMs = performance.now() - compileStarted;
  if (!ajvTask) throw new Error(`ajv has no schema ${TASK_SCHEMA_ID}`);

  // Both must agree before their speed means anything.
  if (!validateTask(task).valid || !ajvTask(task)) throw new Error('the typical task should be valid');
  const generatedErrors = validateTask(broken);
  if (generatedErrors.valid || ajvTask(broken)) throw new Error('the broken task should be invalid');

  // validateTask is what parley calls: the standalone function plus the wrapper that never
  // throws and turns ajv's errors into ValidationIssues. The bare function shows the split.
  const wrapped = (value: unknown) => validateTask(value).valid;
  const standalone = compiledValidators.task as (value: unknown) => boolean;
  const runtime = (value: unknown) => ajvTask(value) as boolean;
  const valid = compare([wrapped, standalone, runtime], task);
  const invalid = compare([wrapped, standalone, runtime], broken);
  const codegen = codegenTime();

  const rate = (n: number) => `${format(n)}/s`;
  const ratio = (a: number, b: number) => `${format(a / b, 2)}x`;
  const rows: string[][] = [
    ['case', 'validateTask', 'standalone fn', 'ajv run-time', 'validateTask/ajv', 'standalone/ajv'],
    [
      `valid Task (${bytes} B)`,
      rate(valid[0]!),
      rate(valid[1]!),
      rate(valid[2]!),
      ratio(valid[0]!, valid[2]!),
      ratio(valid[1]!, valid[2]!),
    ],
    [
      `invalid Task (${generatedErrors.errors.length} errors)`,
      rate(invalid[0]!),
      rate(invalid[1]!),
      rate(invalid[2]!),
      ratio(invalid[0]!, invalid[2]!),
      ratio(invalid[1]!, invalid[2]!),
    ],
    ['schema compile at startup', '0 ms', '0 ms', `${format(compileMs, 1)} ms`, `${files.length} native schemas`, ''],
    ['codegen --check (wall)', `${format(codegen.ms)} ms`, '', '', codegen.note, ''],
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  console.log(`bench/validate: median of ${ROUNDS} rounds of ${ROUND_MS} ms each, rounds alternated, node ${process.version}`);
  console.log(line(rows[0]!));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows.slice(1)) console.log(line(row));
  console.log(
    'validateTask = generated standalone validator + never-throwing wrapper (what parley runs); standalone fn = the bare',
  );
  console.log(
    'generated function; ajv run-time = the same schemas compiled by Ajv2020 in this process. Ratios above 1 favour generated.',
  );
}

main();
