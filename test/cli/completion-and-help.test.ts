// The built `parley` command's help and shell completion: every command's --help ends with
// examples and exits 0; docs/cli.md has a section for every command and states the exit
// statuses; the bash script, loaded into a real bash, completes commands, serve's roles,
// each command's options (every one its help lists) and option values; the zsh script offers
// the same words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionLines } from '../../src/cli/completion.js';
import { runCli, scratchDir } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMANDS = [
  'validate',
  'schemas',
  'contract',
  'serve',
  'discover',
  'register',
  'unregister',
  'card',
  'health',
  'send',
  'stream',
  'completion',
  'help',
];
/** Each command's help, by the words that ask for it (serve has one per role). */
const HELP_TOPICS = [...COMMANDS.filter((c) => c !== 'serve').map((c) => [c]), ['serve', 'agent'], ['serve', 'registry']];

function parley(args: readonly string[]) {
  return runCli(args, { cwd: ROOT, built: true });
}

describe('parley --help', () => {
  test('lists every command', async () => {
    const result = await parley(['--help']);
    assert.equal(result.code, 0);
    for (const command of COMMANDS) assert.match(result.stdout, new RegExp(`^  ${command} `, 'm'), command);
  });

  test('every command documents its options and ends with examples of itself', async () => {
    for (const topic of HELP_TOPICS) {
      const result = await parley([...topic, '--help']);
      assert.equal(result.code, 0, `${topic.join(' ')}: ${result.stderr}`);
      assert.match(result.stdout, /^Usage: parley /m, topic.join(' '));
      const examples = result.stdout.slice(result.stdout.indexOf('\nExamples:\n'));
      assert.ok(examples.length > 12, `${topic.join(' ')} has examples`);
      for (const line of examples.split('\n').slice(2).filter(Boolean)) {
        assert.match(line, new RegExp(`\\bparley ${topic[0]}\\b`), `${topic.join(' ')}: ${line}`);
      }
    }
  });

  test("parley help serve registry is the registry's help; serve agent's names llama.cpp on the port the docs use", async () => {
    const viaHelp = await parley(['help', 'serve', 'registry']);
    const direct = await parley(['serve', 'registry', '--help']);
    assert.equal(viaHelp.code, 0, viaHelp.stderr);
    assert.equal(viaHelp.stdout, direct.stdout);
    assert.match(viaHelp.stdout, /^Usage: parley serve registry /m);
    const agent = await parley(['help', 'serve']);
    assert.match(agent.stdout, /^Usage: parley serve agent /m);
    // docs/llm.md starts llama-server on 8081, since 8080 is the agent's own default.
    assert.match(agent.stdout, /127\.0\.0\.1:8081\/v1\s+\(llama\.cpp/);
    assert.doesNotMatch(agent.stdout, /8080\/v1/);
    const llmDoc = readFileSync(join(ROOT, 'docs/llm.md'), 'utf8');
    assert.match(llmDoc, /llama-server .*--port 8081/);
  });

  test('docs/cli.md has a section for every command and the exit statuses', () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    for (const command of COMMANDS) assert.match(doc, new RegExp(`^#+ .*\\bparley ${command}\\b`, 'm'), command);
    assert.match(doc, /^#+ Exit status/m);
  });
});

describe('parley completion', () => {
  async function script(shell: string): Promise<string> {
    const result = await parley(['completion', shell]);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  }

  test('bash: a real bash completes commands, roles, options and values', async (t) => {
    const { dir, cleanup } = scratchDir({ 'parley.bash': await script('bash'), 'task.json': '{}' });
    t.after(cleanup);
    /** What bash offers for the command line `words`, the last word being completed. */
    const complete = (...words: string[]): string[] => {
      const line = ['parley', ...words].map((word) => `'${word}'`).join(' ');
      const run = spawnSync(
        'bash',
        [
          '-c',
          `source parley.bash; COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _parley; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      assert.equal(run.status, 0, run.stderr);
      return run.stdout.split('\n').filter(Boolean).sort();
    };
    assert.deepEqual(complete('st'), ['stream']);
    assert.deepEqual(complete('se'), ['send', 'serve']);
    assert.deepEqual(complete('serve', ''), ['agent', 'registry']);
    assert.deepEqual(complete('serve', 'registry', '--d'), ['--db']);
    assert.deepEqual(complete('serve', 'agent', '--transport', 'w'), ['websocket']);
    assert.deepEqual(complete('serve', 'registry', '--log-level', 't'), ['trace']);
    assert.deepEqual(complete('send', 'http://x', 'hi', '--protocol', ''), ['a2a', 'auto', 'parley']);
    assert.deepEqual(complete('validate', '--schema', 'agent-card'), ['agent-card', 'agent-card-list']);
    assert.deepEqual(complete('validate', '--schema', 'task', 'ta'), ['task.json']);
    assert.deepEqual(complete('completion', ''), ['bash', 'zsh']);
    assert.deepEqual(complete('contract', ''), ['check', 'release']);
    assert.deepEqual(complete('contract', 'check', '--ag'), ['--against']);
    // Every option each command's help lists is offered for it.
    for (const topic of HELP_TOPICS.filter((words) => words[0] !== 'help')) {
      const help = await parley([...topic, '--help']);
      const documented = optionLines(help.stdout).map((found) => found.option);
      assert.ok(documented.length > 0, topic.join(' '));
      assert.deepEqual(
        complete(...topic, '--'),
        [...new Set(documented)].filter((o) => o.startsWith('--')).sort(),
        topic.join(' '),
      );
    }
  });

  test('zsh: a #compdef script with every command and the same options', async () => {
    const zsh = await script('zsh');
    assert.match(zsh, /^#compdef parley\n/);
    for (const command of COMMANDS) assert.match(zsh, new RegExp(`'${command}:`), command);
    assert.match(zsh, /'serve registry'\) opts=\(.*--db.*--ttl/);
    assert.match(zsh, /--transport\) compadd -- http sse websocket grpc; return ;;/);
    // zsh itself is not needed to read it, but when it is there the script must parse.
    const zshCheck = spawnSync('zsh', ['-n'], { input: zsh, encoding: 'utf8' });
    if (!zshCheck.error) assert.equal(zshCheck.status, 0, zshCheck.stderr);
  });
});
