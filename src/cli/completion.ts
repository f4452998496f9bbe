// `parley completion bash|zsh`: prints a shell completion script for the `parley` command. The
// options it completes are read from each command's own --help text (its indented option
// lines), so the script offers exactly what the help documents, and an option added to a
// command's help is completed without a change here. Values are completed where they are a
// closed set (transports, protocols, formats, schema names, shells, contract's actions) or a file.
import { schemaNames } from '../../generated/validators/index.js';
import { LOG_LEVELS } from '../observability/logger.js';
import { parseCommandArgs } from './args.js';
import { EXIT } from './output.js';
import { UsageError } from './usage-error.js';

const COMPLETION_USAGE = `Usage: parley completion bash|zsh

Prints a completion script for bash or zsh on standard output: commands, the roles of serve,
every option of each command, and the values of options that take one of a known set
(transports, protocols, formats, schema names) or a file.

  bash, for this shell:   source <(parley completion bash)
  bash, for good:         parley completion bash > ~/.local/share/bash-completion/completions/parley
  zsh, for this shell:    source <(parley completion zsh)
  zsh, for good:          parley completion zsh > "\${fpath[1]}/_parley"   (then restart zsh)

Options:
  -h, --help        show this help
`;

const SHELLS = ['bash', 'zsh'] as const;
type Shell = (typeof SHELLS)[number];

/** The help text of each completed command; `serve` has one per role. */
const USAGES: Readonly<Record<string, () => Promise<string>>> = {
  card: async () => (await import('./card.js')).CARD_USAGE,
  health: async () => (await import('./health.js')).HEALTH_USAGE,
  send: async () => (await import('./send.js')).SEND_USAGE,
  stream: async () => (await import('./stream.js')).STREAM_USAGE,
  discover: async () => (await import('./discover.js')).DISCOVER_USAGE,
  register: async () => (await import('./register.js')).REGISTER_USAGE,
  unregister: async () => (await import('./unregister.js')).UNREGISTER_USAGE,
  validate: async () => (await import('./validate.js')).VALIDATE_USAGE,
  schemas: async () => (await import('./schemas.js')).SCHEMAS_USAGE,
  contract: async () => (await import('./contract.js')).CONTRACT_USAGE,
  'serve agent': async () => (await import('./serve.js')).SERVE_USAGE,
  'serve registry': async () => (await import('./serve-registry.js')).SERVE_REGISTRY_USAGE,
  completion: async () => COMPLETION_USAGE,
};

/** What follows an option: nothing, one of some words, or a file name. */
type OptionValue = { kind: 'none' } | { kind: 'words'; words: readonly string[] } | { kind: 'file' } | { kind: 'any' };

interface CompletionModel {
  readonly commands: ReadonlyArray<{ name: string; summary: string }>;
  /** Options of each command (`serve agent`, `serve registry` for serve's roles). */
  readonly options: ReadonlyMap<string, readonly string[]>;
  /** What each option takes, by option; the same name means the same thing in every command. */
  readonly values: ReadonlyMap<string, OptionValue>;
  /** Commands whose arguments are files (validate). */
  readonly fileArguments: readonly string[];
}

export async function runCompletion(args: string[], commands: ReadonlyArray<{ name: string; summary: string }>): Promise<number> {
  const { options, positionals } = parseCommandArgs('completion', args, { help: { type: 'boolean', short: 'h' } });
  if (options.help) {
    process.stdout.write(COMPLETION_USAGE);
    return EXIT.ok;
  }
  const [shell, extra] = positionals;
  if (shell === undefined) throw new UsageError('completion: name the shell: parley completion bash, or parley completion zsh');
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`completion: no completion for ${JSON.stringify(shell)}; the shells are ${SHELLS.join(' and ')}`);
  }
  if (extra !== undefined) throw new UsageError(`completion: unexpected argument ${JSON.stringify(extra)}`);
  const model = await completionModel(commands);
  process.stdout.write((shell as Shell) === 'bash' ? bashScript(model) : zshScript(model));
  return EXIT.ok;
}

async function completionModel(commands: ReadonlyArray<{ name: string; summary: string }>): Promise<CompletionModel> {
  const options = new Map<string, string[]>();
  const values = new Map<string, OptionValue>();
  for (const [command, usage] of Object.entries(USAGES)) {
    const found: string[] = [];
    for (const { option, value } of optionLines(await usage())) {
      if (!found.includes(option)) found.push(option);
      if (!values.has(option)) values.set(option, optionValue(option, value));
    }
    options.set(command, found);
  }
  return { commands, options, values, fileArguments: ['validate'] };
}

/**
 * The options an indented help line introduces: `  --name VALUE  text`, `  -h, --help  text`.
 * A value is the word after one space; two spaces start the description.
 */
export function optionLines(usage: string): Array<{ option: string; value: string | null }> {
  const found: Array<{ option: string; value: string | null }> = [];
  for (const line of usage.split('\n')) {
    const match = /^ {2,}(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)(?:[ =]([^\s]+))?/.exec(line);
    if (match) found.push({ option: match[1]!, value: match[2] ?? null });
  }
  return found;
}

function optionValue(option: string, value: string | null): OptionValue {
  if (value === null) return { kind: 'none' };
  if (option === '--transport') return { kind: 'words', words: ['http', 'sse', 'websocket', 'grpc'] };
  if (option === '--protocol') return { kind: 'words', words: ['auto', 'parley', 'a2a'] };
  if (option === '--schema') return { kind: 'words', words: schemaNames };
  if (option === '--log-level') return { kind: 'words', words: LOG_LEVELS };
  if (/FILE/.test(value)) return { kind: 'file' };
  if (value.includes('|')) return { kind: 'words', words: value.split('|') };
  return { kind: 'any' };
}

/** Quotes a word list for a shell: the words are option names, schema names and such, never quotes. */
function wordList(words: readonly string[]): string {
  return words.join(' ');
}

function valueCases(model: CompletionModel, render: (option: string, value: OptionValue) => string | null): string[] {
  const cases: string[] = [];
  for (const [option, value] of [...model.values].sort(([a], [b]) => a.localeCompare(b))) {
    const rendered = render(option, value);
    if (rendered !== null) cases.push(rendered);
  }
  return cases;
}

function bashScript(model: CompletionModel): string {
  const names = model.commands.map((command) => command.name);
  const optionCases = [...model.options].map(([command, list]) => `    '${command}') opts='${wordList(list)}' ;;`);
  const values = valueCases(model, (option, value) => {
    switch (value.kind) {
      case 'words':
        return `    ${option}) COMPREPLY=($(compgen -W '${wordList(value.words)}' -- "$cur")); return ;;`;
      case 'file':
        return `    ${option}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`;
      case 'any':
        return `    ${option}) return ;;`;
      default:
        return null;
    }
  });
  return `# bash completion for parley (printed by: parley completion bash)
_parley() {
  local cur prev cmd opts=''
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W '${wordList([...names, '--help', '--version'])}' -- "$cur"))
    return
  fi
  cmd="\${COMP_WORDS[1]}"
  case "$cmd" in
    serve)
      if [[ $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W 'agent registry' -- "$cur"))
        return
      fi
      cmd="serve \${COMP_WORDS[2]}" ;;
    help)
      [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W '${wordList(names)}' -- "$cur"))
      return ;;
    contract)
      if [[ $COMP_CWORD -eq 2 && "$cur" != -* ]]; then
        COMPREPLY=($(compgen -W 'check release' -- "$cur"))
        return
      fi ;;
    completion)
      if [[ "$cur" != -* ]]; then
        [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W '${wordList(SHELLS)}' -- "$cur"))
        return
      fi ;;
  esac
  case "$prev" in
${values.join('\n')}
  esac
  case "$cmd" in
${optionCases.join('\n')}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ "$cmd" == ${model.fileArguments.join(' || "$cmd" == ')} ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o default -F _parley parley
`;
}

/** A zsh single-quoted string. */
function zshQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function zshScript(model: CompletionModel): string {
  const described = model.commands.map((command) => `    ${zshQuote(`${command.name}:${command.summary.replace(/:/g, '\\:')}`)}`);
  const optionCases = [...model.options].map(([command, list]) => `    ${zshQuote(command)}) opts=(${wordList(list)}) ;;`);
  const values = valueCases(model, (option, value) => {
    switch (value.kind) {
      case 'words':
        return `    ${option}) compadd -- ${wordList(value.words)}; return ;;`;
      case 'file':
        return `    ${option}) _files; return ;;`;
      case 'any':
        return `    ${option}) return ;;`;
      default:
        return null;
    }
  });
  return `#compdef parley
# zsh completion for parley (printed by: parley completion zsh)
_parley() {
  local -a commands opts
  local cmd
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe 'parley command' commands
    return
  fi
  cmd=\${words[2]}
  case $cmd in
    serve)
      if (( CURRENT == 3 )); then
        compadd -- agent registry
        return
      fi
      cmd="serve \${words[3]}" ;;
    help)
      (( CURRENT == 3 )) && _describe 'parley command' commands
      return ;;
    contract)
      if (( CURRENT == 3 )) && [[ $PREFIX != -* ]]; then
        compadd -- check release
        return
      fi ;;
    completion)
      if [[ $PREFIX != -* ]]; then
        (( CURRENT == 3 )) && compadd -- ${wordList(SHELLS)}
        return
      fi ;;
  esac
  case \${words[CURRENT-1]} in
${values.join('\n')}
  esac
  case $cmd in
${optionCases.join('\n')}
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $opts
  elif [[ $cmd == ${model.fileArguments.join(' || $cmd == ')} ]]; then
    _files
  fi
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _parley "$@"
else
  compdef _parley parley
fi
`;
}
