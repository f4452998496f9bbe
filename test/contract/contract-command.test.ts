// `parley contract check|release` run as a user would, on a scratch copy of this repository's
// schemas/ and contract/: the changes the issue names fail the gate with a line naming the file,
// the pointer and the rule; an added optional property passes; usage errors exit 2; --json has
// one document; a git ref can be the baseline; accepted breaks and --strict do what they say.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lines, runCli } from '../cli/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TASK = 'schemas/native/task.schema.json';

/** A scratch directory holding copies of schemas/ and contract/released-schemas/. */
function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-contract-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, 'schemas'), join(dir, 'schemas'), { recursive: true });
  cpSync(join(ROOT, 'contract', 'released-schemas'), join(dir, 'contract', 'released-schemas'), { recursive: true });
  return dir;
}

function edit(dir: string, file: string, change: (json: any) => void): void {
  const path = join(dir, file);
  const json = JSON.parse(readFileSync(path, 'utf8'));
  change(json);
  writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
}

function parley(dir: string, ...args: string[]) {
  return runCli(['contract', ...args], { cwd: dir });
}

describe('parley contract check', () => {
  test('the unchanged schemas are compatible with the released baseline', async (t) => {
    const result = await parley(scratch(t), 'check');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(lines(result.stdout), ['compatible with contract/released-schemas: 0 breaking, 0 unjudged, 0 warnings']);
  });

  const breaks: ReadonlyArray<[string, string, (json: any) => void, RegExp]> = [
    [
      'removing a property',
      TASK,
      (s) => delete s.properties.artifacts,
      /^schemas\/native\/task\.schema\.json:\/properties\/artifacts: PROPERTY_REMOVED: /m,
    ],
    [
      'making an optional field required',
      TASK,
      (s) => s.required.push('messages'),
      /^schemas\/native\/task\.schema\.json:\/properties\/messages: PROPERTY_NEWLY_REQUIRED: property "messages" is now required/m,
    ],
    [
      'dropping an error code',
      'schemas/native/error-code.schema.json',
      (s) => s.enum.splice(s.enum.indexOf('conflict'), 1),
      /^schemas\/native\/error-code\.schema\.json:\/enum: ERROR_CODE_REMOVED: error code "conflict" removed/m,
    ],
    [
      'removing an operation',
      'schemas/operations/agent.json',
      (m) =>
        m.operations.splice(
          m.operations.findIndex((o: any) => o.name === 'cancelTask'),
          1,
        ),
      /^schemas\/operations\/agent\.json:\/operations\/1: OPERATION_REMOVED: operation "cancelTask"/m,
    ],
  ];
  for (const [what, file, change, line] of breaks) {
    test(`${what} fails the gate with the file, the pointer and the rule`, async (t) => {
      const dir = scratch(t);
      edit(dir, file, change);
      const result = await parley(dir, 'check');
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stdout, line);
      assert.match(result.stdout, /^breaking with contract\/released-schemas: [1-9]\d* breaking/m);
    });
  }

  test('adding an optional property passes', async (t) => {
    const dir = scratch(t);
    edit(dir, TASK, (s) => (s.properties.priority = { type: 'integer', minimum: 0 }));
    const result = await parley(dir, 'check');
    assert.equal(result.code, 0, result.stdout);
  });

  test('--json prints one document with every finding', async (t) => {
    const dir = scratch(t);
    edit(dir, TASK, (s) => {
      delete s.properties.created_at;
      s.properties.messages.default = [{}];
    });
    const result = await parley(dir, 'check', '--json');
    assert.equal(result.code, 1);
    const document = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(document), ['compatible', 'baseline', 'strict', 'summary', 'findings', 'unused_accepted']);
    assert.equal(document.compatible, false);
    assert.deepEqual(document.summary, { breaking: 1, unjudged: 0, warning: 1, accepted: 0 });
    assert.deepEqual(document.findings[0], {
      file: TASK,
      pointer: '/properties/created_at',
      rule: 'PROPERTY_REMOVED',
      verdict: 'breaking',
      direction: 'both',
      message: 'property "created_at" removed',
      accepted: null,
    });
    assert.equal(document.findings[1].rule, 'DEFAULT_CHANGED');
    assert.equal(document.findings[1].verdict, 'warning');
  });

  test('warnings pass unless --strict', async (t) => {
    const dir = scratch(t);
    edit(dir, TASK, (s) => (s.properties.state.default = 'working'));
    const plain = await parley(dir, 'check');
    assert.equal(plain.code, 0, plain.stdout);
    assert.match(
      plain.stdout,
      /\/properties\/state\/default: DEFAULT_CHANGED: default "submitted" became "working" \(requests and answers; warning\)/,
    );
    assert.equal((await parley(dir, 'check', '--strict')).code, 1);
  });

  test('a break declared in contract/accepted-breaks.json passes, listed as accepted; a stale entry is named', async (t) => {
    const dir = scratch(t);
    edit(dir, TASK, (s) => delete s.properties.artifacts);
    const entry = (pointer: string) => ({
      rule: 'PROPERTY_REMOVED',
      file: TASK,
      pointer,
      reason: 'artifacts moved to their own endpoint',
    });
    writeFileSync(
      join(dir, 'contract', 'accepted-breaks.json'),
      JSON.stringify({ accepted: [entry('/properties/artifacts'), entry('/properties/nothing')] }),
    );
    const result = await parley(dir, 'check');
    assert.equal(result.code, 0, result.stdout);
    assert.match(
      result.stdout,
      /\/properties\/artifacts: PROPERTY_REMOVED: .*accepted: artifacts moved to their own endpoint\)$/m,
    );
    assert.match(
      result.stdout,
      /^accepted break PROPERTY_REMOVED at schemas\/native\/task\.schema\.json:\/properties\/nothing matches no change/m,
    );
    assert.equal((await parley(dir, 'check', '--strict')).code, 1, 'a stale entry fails a strict check');
    writeFileSync(
      join(dir, 'contract', 'accepted-breaks.json'),
      JSON.stringify({ accepted: [{ ...entry('/properties/artifacts'), reason: ' ' }] }),
    );
    const unexplained = await parley(dir, 'check');
    assert.equal(unexplained.code, 2);
    assert.match(unexplained.stderr, /accepted\[0\]\.reason must say why/);
  });

  test('usage errors exit 2, with a JSON error document under --json', async (t) => {
    const dir = scratch(t);
    const cases: ReadonlyArray<[string[], RegExp]> = [
      [[], /name the action first/],
      [['frob'], /unknown action "frob"/],
      [['check', '--bogus'], /unknown option --bogus/],
      [['check', '--schemas', 'schemas/native'], /--against DIR\|REF is required/],
      [['check', '--schemas', 'schemas/native', '--against', 'no-such-ref'], /neither a directory nor a git ref/],
      [
        ['check', '--schemas', 'missing', '--against', 'contract/released-schemas'],
        /no schema folder at contract\/released-schemas: missing/,
      ],
      [['check', '--schemas', '../elsewhere', '--against', '.'], /must be inside the working directory/],
      [['check', '--out', 'x'], /--out is an option of release/],
      [['check', '--accept', 'nope.json'], /--accept nope\.json does not exist/],
      [['release', '--out', '.', '--skip-proto'], /--out \. would write over schemas\/native/],
      [['release', '--out', 'schemas/native/released', '--skip-proto'], /would write over/],
    ];
    for (const [args, message] of cases) {
      const result = await parley(dir, ...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
    }
    assert.ok(existsSync(join(dir, TASK)), 'a refused release removed nothing');
    const json = await parley(dir, 'check', '--schemas', 'schemas/native', '--against', 'no-such-ref', '--json');
    assert.equal(json.code, 2);
    assert.equal(JSON.parse(json.stdout).error.code, 'unknown_baseline');
  });

  test('--against a git ref reads the baseline from that commit', async (t) => {
    const dir = scratch(t);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    git('add', 'schemas/native');
    git('commit', '-qm', 'schemas before the manifests');
    const withManifests = ['check', '--schemas', 'schemas/native', '--manifest', 'schemas/operations', '--against', 'HEAD'];
    const early = await parley(dir, ...withManifests);
    assert.equal(early.code, 0, `a baseline without the manifest folder has no manifests: ${early.stdout}${early.stderr}`);
    git('add', 'schemas');
    git('commit', '-qm', 'released');
    edit(dir, 'schemas/native/task-state.schema.json', (s) => s.enum.push('paused'));
    const result = await parley(
      dir,
      'check',
      '--schemas',
      'schemas/native',
      '--manifest',
      'schemas/operations',
      '--against',
      'HEAD',
    );
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /^schemas\/native\/task-state\.schema\.json:\/enum: ENUM_VALUE_ADDED: enum value "paused" added \(requests and answers; breaking\)$/m,
    );
    assert.match(result.stdout, /^breaking with git:HEAD: 1 breaking/m);
    git('commit', '-qam', 'paused');
    assert.equal((await parley(dir, 'check', '--schemas', 'schemas/native', '--against', 'HEAD')).code, 0);
  });
});

describe('parley contract release', () => {
  test('writes the baseline the next check compares with, and empties the accepted breaks', async (t) => {
    const dir = scratch(t);
    edit(dir, TASK, (s) => delete s.properties.artifacts);
    writeFileSync(join(dir, 'contract', 'accepted-breaks.json'), JSON.stringify({ accepted: [] }));
    assert.equal((await parley(dir, 'check')).code, 1);
    const release = await parley(dir, 'release', '--skip-proto');
    assert.equal(release.code, 0, release.stderr);
    assert.match(release.stdout, /^wrote \d+ files of schemas\/native and schemas\/operations to contract\/released-schemas$/m);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'contract', 'accepted-breaks.json'), 'utf8')), { accepted: [] });
    assert.equal(readFileSync(join(dir, 'contract', 'released-schemas', TASK), 'utf8'), readFileSync(join(dir, TASK), 'utf8'));
    assert.equal((await parley(dir, 'check')).code, 0);
  });
});
