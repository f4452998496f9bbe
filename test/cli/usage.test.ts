// What `parley` says when it cannot do what was asked (exit 2, one `parley: ...` line, no
// stack trace), plus help, version and the schema listing.
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { schemaNames } from '../../generated/validators/index.js';
import { lines, runCli, scratchDir } from './run-cli.js';

let scratch: ReturnType<typeof scratchDir>;
before(() => {
  scratch = scratchDir({
    'ok.json': '{"id":"t-1"}',
    'broken.json': '{\n  "id": "t-1",\n  "state": \n}\n',
    'broken-lines.ndjson': '{"id":"a"}\n{"id":"b"}\n{"id": "c",}\n',
    'unterminated.json': '{"id": "t-1',
    'locked.json': '{"id":"t-1"}',
  });
  chmodSync(join(scratch.dir, 'locked.json'), 0o000);
});
after(() => scratch.cleanup());

const run = (...args: string[]) => runCli(args, { cwd: scratch.dir });

describe('parley: usage errors', { concurrency: 4 }, () => {
  it('rejects an unknown schema name and suggests the closest ones', async () => {
    const result = await run('validate', '--schema', 'tsak', 'ok.json');
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^parley: validate: unknown schema "tsak"; did you mean: task\b.*\?\n$/);

    const stateTypo = await run('validate', '--schema', 'task-stat', 'ok.json');
    assert.match(stateTypo.stderr, /did you mean: task-state, /);

    const json = await run('validate', '--schema', 'agentcard', '--format', 'json', 'ok.json');
    assert.equal(json.code, 2);
    const { error } = JSON.parse(json.stdout) as {
      error: { code: string; schema: string; suggestions: string[]; message: string };
    };
    assert.equal(error.code, 'unknown_schema');
    assert.equal(error.schema, 'agentcard');
    assert.equal(error.suggestions[0], 'agent-card');
    assert.match(error.message, /unknown schema "agentcard"/);
  });

  it('names a file it cannot read and the reason', async () => {
    const missing = await run('validate', '--schema', 'task', 'ok.json', 'missing.json');
    assert.equal(missing.code, 2);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, 'parley: cannot read missing.json: no such file or directory\n');

    const directory = await run('validate', '--schema', 'task', '.');
    assert.equal(directory.code, 2);
    assert.match(directory.stderr, /^parley: cannot read \.: /);

    if (process.getuid?.() !== 0) {
      const locked = await run('validate', '--schema', 'task', 'locked.json');
      assert.equal(locked.code, 2);
      assert.equal(locked.stderr, 'parley: cannot read locked.json: permission denied\n');
    }

    const json = await run('validate', '--schema', 'task', '--format=json', 'missing.json');
    assert.equal(json.code, 2);
    assert.deepEqual(JSON.parse(json.stdout), {
      error: {
        code: 'unreadable_file',
        file: 'missing.json',
        reason: 'no such file or directory',
        message: 'cannot read missing.json: no such file or directory',
      },
    });
  });

  it('locates malformed JSON by line and column', async () => {
    const broken = await run('validate', '--schema', 'task', 'broken.json');
    assert.equal(broken.code, 2);
    assert.equal(broken.stdout, '');
    assert.equal(broken.stderr, "parley: broken.json: invalid JSON at line 4, column 1: expected a value, found '}'\n");

    const ndjson = await run('validate', '--schema', 'task', 'broken-lines.ndjson');
    assert.equal(ndjson.code, 2);
    assert.match(ndjson.stderr, /^parley: broken-lines\.ndjson: invalid JSON at line 3, column 12: /);

    const unterminated = await run('validate', '--schema', 'task', 'unterminated.json');
    assert.match(unterminated.stderr, /line 1, column 12: unterminated string/);

    const stdin = await runCli(['validate', '--schema', 'task', '-'], { cwd: scratch.dir, stdin: '[1, 2,]' });
    assert.equal(stdin.code, 2);
    assert.match(stdin.stderr, /^parley: <stdin>: invalid JSON at line 1, column 7: /);

    const json = await run('validate', '--schema', 'task', '--format', 'json', 'broken.json');
    assert.equal(json.code, 2);
    const { error } = JSON.parse(json.stdout) as { error: Record<string, unknown> };
    assert.deepEqual([error.code, error.file, error.line, error.column], ['invalid_json', 'broken.json', 4, 1]);
  });

  it('explains bad arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['validate', 'ok.json'], /--schema <name> is required/],
      [['validate', '--schema', 'task'], /name at least one file/],
      [['validate', '--schema'], /--schema needs a value/],
      [['validate', '--schema', 'task', '--format', 'yaml', 'ok.json'], /--format must be one of text, json/],
      [['validate', '--schema', 'task', '--strict', 'ok.json'], /unknown option --strict/],
      [['validate', '--schema', 'task', '-', '-'], /standard input \(-\) can be read only once/],
      [['valdate'], /unknown command "valdate"; did you mean: validate\?/],
      [['--frobnicate'], /unknown option --frobnicate/],
      [['schemas', 'extra'], /unexpected argument "extra"/],
      [['help', 'nope'], /unknown command "nope"/],
      [['help', 'hlep'], /unknown command "hlep"; did you mean: help\?/],
    ];
    for (const [args, message] of cases) {
      const result = await run(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /^parley: /, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
    }
  });

  it('prints usage on stderr with exit 2 when given no command', async () => {
    const result = await run();
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^Usage: parley <command>/);
  });
});

describe('parley: help, version, schemas', { concurrency: 4 }, () => {
  it('prints help', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const result = await run(...args);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /^Usage: parley <command>/);
      for (const command of ['validate', 'schemas', 'serve', 'help'])
        assert.match(result.stdout, new RegExp(`^  ${command} `, 'm'));
    }
    for (const args of [
      ['validate', '--help'],
      ['help', 'validate'],
    ]) {
      const result = await run(...args);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /^Usage: parley validate --schema <name> <file>\.\.\./);
    }
  });

  it('help help (and help --help) prints the general usage', async () => {
    for (const args of [
      ['help', 'help'],
      ['help', '--help'],
      ['help', '-h'],
    ]) {
      const result = await run(...args);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr, '');
      assert.match(result.stdout, /^Usage: parley <command>/);
    }
  });

  it('describes serve as what exists: an agent server and a registry, and the registry commands', async () => {
    const result = await run('--help');
    assert.match(result.stdout, /^ {2}serve .*\bagent\b.*\bregistry\b/m);
    for (const command of ['discover', 'register', 'unregister']) assert.match(result.stdout, new RegExp(`^  ${command} `, 'm'));
  });

  it('prints the version', async () => {
    const { default: manifest } = await import('../../package.json', { with: { type: 'json' } });
    const result = await run('--version');
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `${manifest.version}\n`);
  });

  it('lists schema names, native first, then a2a', async () => {
    const text = await run('schemas');
    assert.equal(text.code, 0);
    const names = lines(text.stdout);
    assert.deepEqual(names, [...schemaNames]);
    const firstA2a = names.findIndex((name) => name.startsWith('a2a:'));
    assert.ok(firstA2a > 0 && names.slice(firstA2a).every((name) => name.startsWith('a2a:')));
    assert.ok(names.includes('task') && names.includes('a2a:Task'));

    const json = await run('schemas', '--format', 'json');
    assert.equal(json.code, 0);
    assert.deepEqual(JSON.parse(json.stdout), names);
  });
});
