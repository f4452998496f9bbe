#!/usr/bin/env node
// The `parley` command. Each subcommand lives in its own module, loaded only when it is
// asked for, so `parley --version` does not pay for the validators or the servers. Whatever
// goes wrong, the user sees `parley: <message>` and an exit status, never a stack trace
// (set PARLEY_DEBUG=1 to get one).
import { helpExamples } from './help-examples.js';
import { EXIT, wantsHelp, wantsJson } from './output.js';
import { packageInfo } from './package-info.js';
import { closestNames } from './suggest.js';
import { UsageError } from './usage-error.js';

interface Command {
  readonly summary: string;
  run(args: string[]): Promise<number>;
}

const commands: Readonly<Record<string, Command>> = {
  validate: {
    summary: 'check JSON or JSON Lines files against a parley schema',
    async run(args) {
      const { runValidate } = await import('./validate.js');
      return runValidate(args);
    },
  },
  schemas: {
    summary: 'list the schema names validate accepts',
    async run(args) {
      const { runSchemas } = await import('./schemas.js');
      return runSchemas(args);
    },
  },
  serve: {
    summary: 'run a server: parley serve agent, parley serve registry',
    async run(args) {
      const { runServe } = await import('./serve.js');
      return runServe(args);
    },
  },
  discover: {
    summary: 'list the live agents of a registry: parley discover URL [--name] [--role] [--tag]',
    async run(args) {
      const { runDiscover } = await import('./discover.js');
      return runDiscover(args);
    },
  },
  register: {
    summary: 'register an agent card with a registry',
    async run(args) {
      const { runRegister } = await import('./register.js');
      return runRegister(args);
    },
  },
  unregister: {
    summary: 'remove an agent from a registry',
    async run(args) {
      const { runUnregister } = await import('./unregister.js');
      return runUnregister(args);
    },
  },
  card: {
    summary: "print an agent's card",
    async run(args) {
      const { runCard } = await import('./card.js');
      return runCard(args);
    },
  },
  health: {
    summary: 'ask an agent or a registry whether it is up (exit 0) or not (exit 1)',
    async run(args) {
      const { runHealth } = await import('./health.js');
      return runHealth(args);
    },
  },
  send: {
    summary: 'send a text to an agent (parley or A2A 1.0) and print its answer',
    async run(args) {
      const { runSend } = await import('./send.js');
      return runSend(args);
    },
  },
  stream: {
    summary: "send a text to an agent and print the task's events as they arrive",
    async run(args) {
      const { runStream } = await import('./stream.js');
      return runStream(args);
    },
  },
  contract: {
    summary: 'check JSON Schemas and operations manifests for breaking changes: parley contract check|release',
    async run(args) {
      const { runContract } = await import('./contract.js');
      return runContract(args);
    },
  },
  completion: {
    summary: 'print a bash or zsh completion script: parley completion bash|zsh',
    async run(args) {
      const { runCompletion } = await import('./completion.js');
      return runCompletion(
        args,
        Object.entries(commands).map(([name, command]) => ({ name, summary: command.summary })),
      );
    },
  },
  help: {
    summary: "show this help, or a command's: parley help <command>",
    async run(args) {
      const topic = args[0];
      // `parley help help` asks help for its own usage, which arrives here as `--help`.
      if (topic === undefined || topic === '--help' || topic === '-h') {
        process.stdout.write(usage());
        return 0;
      }
      // The words after the topic reach it too: `parley help serve registry` is the registry's help.
      return dispatch(topic, [...args.slice(1), '--help']);
    },
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const rows = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return [
    'Usage: parley <command> [options]',
    '',
    'Commands:',
    ...rows,
    '',
    'Options:',
    '  -h, --help     show this help',
    '  -v, --version  print the version',
    '',
    'Run parley <command> --help for the options and examples of a command.',
    'The commands that report something take --json (all but serve, completion, help and contract release).',
    'Exit status: 0 done, 1 the server or the data said no (unreachable, refused, failed,',
    'invalid), 2 the command was wrong.',
    '',
  ].join('\n');
}

async function dispatch(name: string, args: string[]): Promise<number> {
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    const suggestions = closestNames(name, Object.keys(commands));
    const hint = suggestions.length > 0 ? `did you mean: ${suggestions.join(', ')}?` : 'see parley --help';
    throw new UsageError(`unknown command "${name}"; ${hint}`, { code: 'unknown_command', command: name, suggestions });
  }
  if (!wantsHelp(args)) return command.run(args);
  const code = await command.run(args);
  if (code === 0) process.stdout.write(helpExamples(name, args));
  return code;
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    process.stderr.write(usage());
    return 2;
  }
  if (first === '--help' || first === '-h') return dispatch('help', []);
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${packageInfo().version}\n`);
    return 0;
  }
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}; see parley --help`);
  return dispatch(first, rest);
}

function report(error: unknown, json: boolean): number {
  if (process.env.PARLEY_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`parley: ${message}\n`);
  // In JSON mode stdout carries one JSON document whatever happens.
  if (json) {
    const failure = error instanceof UsageError ? error : new UsageError(message, { code: 'internal' });
    process.stdout.write(`${JSON.stringify(failure.toJSON(), null, 2)}\n`);
  }
  return error instanceof UsageError ? error.exitCode : EXIT.usage;
}

/** Sets the exit status once everything written so far has been flushed. */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

// A reader that goes away early (`parley schemas | head -1`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

main(process.argv.slice(2)).then(exit, (error: unknown) => exit(report(error, wantsJson(process.argv.slice(2)))));
