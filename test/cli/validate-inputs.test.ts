// How `parley validate` reads its inputs and reports on them: arrays and JSON Lines with item
// indexes, standard input, schemas whose value is itself an array, A2A ProtoJSON payloads,
// the JSON output format, and values too deep for any validator.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lines, runCli, scratchDir } from './run-cli.js';

const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, ...extra });

let scratch: ReturnType<typeof scratchDir>;
before(() => {
  scratch = scratchDir({
    'single.json': JSON.stringify(task('t-1', { state: 'working' }), null, 2),
    'bad-single.json': JSON.stringify(task('t-1', { messages: [{ role: 'robot', parts: [] }] }), null, 2),
    'tasks.json': JSON.stringify([task('a'), task('b', { state: 'paused' }), task('c'), task('d', { messages: 'x' })], null, 2),
    'tasks.ndjson': [task('a'), task('b'), { id: 7 }, '', task('d', { state: 'done' })]
      .map((value) => (value === '' ? '' : JSON.stringify(value)))
      .join('\n'),
    'cards.json': JSON.stringify([{ name: 'translator', url: 'http://127.0.0.1:8001' }, { name: 'planner' }]),
    'empty-list.json': '[]',
  });
});
after(() => scratch.cleanup());

describe('parley validate: inputs', { concurrency: 4 }, () => {
  it('reports a single value without an index, pointer first', async () => {
    const result = await runCli(['validate', '--schema', 'task', 'single.json', 'bad-single.json'], { cwd: scratch.dir });
    assert.equal(result.code, 1);
    assert.deepEqual(lines(result.stdout), [
      'bad-single.json/messages/0/role: must be one of "user", "agent", "assistant", "system"',
      'invalid: 1 of 2 values in 2 files failed schema "task"',
    ]);
    assert.equal(result.stderr, '');
  });

  it('checks each item of a JSON array and names it by index', async () => {
    const result = await runCli(['validate', '--schema', 'task', 'tasks.json'], { cwd: scratch.dir });
    assert.equal(result.code, 1);
    const output = lines(result.stdout);
    assert.ok(
      output.some((line) => line.startsWith('tasks.json[1]/state: must be one of ')),
      result.stdout,
    );
    assert.ok(output.includes('tasks.json[3]/messages: must be array'), result.stdout);
    assert.ok(!output.some((line) => line.startsWith('tasks.json[0]') || line.startsWith('tasks.json[2]')));
    assert.equal(output.at(-1), 'invalid: 2 of 4 values in 1 file failed schema "task"');
  });

  it('checks each line of a JSON Lines file, skipping blank lines', async () => {
    const result = await runCli(['validate', '--schema', 'task', 'tasks.ndjson'], { cwd: scratch.dir });
    assert.equal(result.code, 1);
    const output = lines(result.stdout);
    assert.ok(output.includes('tasks.ndjson[2]/id: must be string'), result.stdout);
    assert.ok(
      output.some((line) => line.startsWith('tasks.ndjson[3]/state: must be one of ')),
      result.stdout,
    );
    assert.equal(output.at(-1), 'invalid: 2 of 4 values in 1 file failed schema "task"');
  });

  it('reads standard input for -', async () => {
    const stdin = `${JSON.stringify(task('a'))}\n${JSON.stringify(task('b', { state: 1 }))}\n`;
    const result = await runCli(['validate', '--schema', 'task', '-'], { cwd: scratch.dir, stdin });
    assert.equal(result.code, 1);
    assert.ok(
      lines(result.stdout).some((line) => line.startsWith('<stdin>[1]/state: ')),
      result.stdout,
    );

    const valid = await runCli(['validate', '--schema=task', '-'], { cwd: scratch.dir, stdin: JSON.stringify(task('a')) });
    assert.equal(valid.code, 0, valid.stdout + valid.stderr);
    assert.deepEqual(lines(valid.stdout), ['ok: 1 value in 1 file valid against schema "task"']);
  });

  it('takes an array as one value when the schema itself is an array (agent-card-list)', async () => {
    const result = await runCli(['validate', '--schema', 'agent-card-list', 'cards.json', 'empty-list.json'], {
      cwd: scratch.dir,
    });
    assert.equal(result.code, 1);
    assert.deepEqual(lines(result.stdout), [
      'cards.json/1/url: is required but missing',
      'invalid: 1 of 2 values in 2 files failed schema "agent-card-list"',
    ]);
  });

  it('checks an empty array of items as zero values', async () => {
    const result = await runCli(['validate', '--schema', 'task', 'empty-list.json'], { cwd: scratch.dir });
    assert.equal(result.code, 0);
    assert.deepEqual(lines(result.stdout), ['ok: 0 values in 1 file valid against schema "task"']);
  });

  it('validates a hand-written A2A 1.0 ProtoJSON task against a2a:Task', async () => {
    const a2aTask = {
      id: '5f2b9c1e-0d3a-4c2e-9a61-1b7f3e8d2c40',
      contextId: 'ctx-42',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-03-01T09:30:02Z' },
      history: [
        { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'Translate good morning into French.' }] },
        { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'Bonjour.' }], taskId: '5f2b9c1e-0d3a-4c2e-9a61-1b7f3e8d2c40' },
      ],
      artifacts: [
        { artifactId: 'art-1', name: 'translation', parts: [{ data: { text: 'Bonjour.' }, mediaType: 'application/json' }] },
      ],
      metadata: { source: 'test' },
    };
    writeFileSync(join(scratch.dir, 'a2a-task.json'), JSON.stringify(a2aTask, null, 2));
    const ok = await runCli(['validate', '--schema', 'a2a:Task', 'a2a-task.json'], { cwd: scratch.dir });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);

    const broken = {
      ...a2aTask,
      status: { state: 'completed' },
      history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'a', url: 'b' }] }],
    };
    writeFileSync(join(scratch.dir, 'a2a-broken.json'), JSON.stringify(broken));
    const bad = await runCli(['validate', '--schema', 'a2a:Task', 'a2a-broken.json'], { cwd: scratch.dir });
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.ok(
      lines(bad.stdout).some((line) => line.startsWith('a2a-broken.json/status/state')),
      bad.stdout,
    );
    assert.ok(
      lines(bad.stdout).some((line) => line.startsWith('a2a-broken.json/history/0/parts/0')),
      bad.stdout,
    );
  });

  it('prints one JSON document with --format json', async () => {
    const result = await runCli(['validate', '--schema', 'task', '--format', 'json', 'single.json', 'tasks.json'], {
      cwd: scratch.dir,
    });
    assert.equal(result.code, 1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      results: Array<{ file: string; index: number | null; valid: boolean; errors: Array<Record<string, unknown>> }>;
    };
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.results.map(({ file, index, valid }) => ({ file, index, valid })),
      [
        { file: 'single.json', index: null, valid: true },
        { file: 'tasks.json', index: 0, valid: true },
        { file: 'tasks.json', index: 1, valid: false },
        { file: 'tasks.json', index: 2, valid: true },
        { file: 'tasks.json', index: 3, valid: false },
      ],
    );
    for (const entry of report.results) {
      for (const error of entry.errors) assert.deepEqual(Object.keys(error).sort(), ['keyword', 'message', 'pointer']);
    }
    assert.deepEqual(
      report.results[2]!.errors.map((error) => [error.pointer, error.keyword]),
      [['/state', 'enum']],
    );
    assert.deepEqual(
      report.results[4]!.errors.map((error) => [error.pointer, error.keyword]),
      [['/messages', 'type']],
    );

    const valid = await runCli(['validate', '--schema', 'task', '--format=json', 'single.json'], { cwd: scratch.dir });
    assert.equal(valid.code, 0);
    assert.deepEqual(JSON.parse(valid.stdout), {
      valid: true,
      schema: 'task',
      results: [{ file: 'single.json', index: null, valid: true, errors: [] }],
    });
  });

  it('survives a value nested 100,000 levels deep', async () => {
    const depth = 100_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    writeFileSync(join(scratch.dir, 'deep-metadata.json'), `{"id":"t-deep","metadata":{"blob":${deep}}}`);
    writeFileSync(join(scratch.dir, 'deep-history.json'), `{"id":"t-deep","metadata":{"state_history":${deep}}}`);
    writeFileSync(
      join(scratch.dir, 'deep-messages.json'),
      `{"id":"t-deep","messages":[{"role":"user","parts":[{"type":"text","content":${deep}}]}]}`,
    );
    for (const file of ['deep-metadata.json', 'deep-history.json', 'deep-messages.json']) {
      for (const format of ['text', 'json']) {
        const result = await runCli(['validate', '--schema', 'task', '--format', format, file], { cwd: scratch.dir });
        assert.ok(result.code === 0 || result.code === 1, `${file} (${format}): exit ${result.code}\n${result.stderr}`);
        if (format === 'json') assert.equal(typeof JSON.parse(result.stdout).valid, 'boolean');
      }
    }
  });
});
