// The "Examples:" block that ends each command's --help. They live here, in one table, so every
// command's help ends the same way and docs/cli.md can be checked against one list.

const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  card: [
    'parley card http://127.0.0.1:8080',
    'parley card ws://127.0.0.1:8080 --json',
    'parley card https://agents.internal:8443 --token-file token.jwt --ca ca.pem',
  ],
  health: [
    'parley health http://127.0.0.1:8080',
    'parley health http://127.0.0.1:8000 --ready --json     # a registry answers too',
    'parley health grpc://127.0.0.1:50051 && echo up',
  ],
  send: [
    'parley send http://127.0.0.1:8080 "hello"',
    'parley send http://127.0.0.1:8080 "hello" --json',
    'parley send https://a2a.example.com "summarize this" --protocol a2a',
    'parley send https://agents.internal:8443 "hello" --api-key-file key.txt --ca ca.pem --cert me.pem --key me.key',
  ],
  stream: ['parley stream http://127.0.0.1:8080 "hello"', 'parley stream ws://127.0.0.1:8080 "hello" --json | jq -c .type'],
  discover: [
    'parley discover http://127.0.0.1:8000',
    'parley discover http://127.0.0.1:8000 --role echo --tag example --json',
    'PARLEY_REGISTRY_TOKEN="$(cat token.jwt)" parley discover https://registry.internal:8000 --ca ca.pem',
  ],
  register: [
    'parley register http://127.0.0.1:8000 --card card.json',
    'parley register http://127.0.0.1:8000 --agent http://127.0.0.1:8080 --json',
  ],
  unregister: ['parley unregister http://127.0.0.1:8000 http://127.0.0.1:8080'],
  validate: [
    'parley validate --schema task task.json',
    'parley validate --schema agent-card cards.jsonl --json',
    'cat message.json | parley validate --schema message -',
  ],
  schemas: ['parley schemas', 'parley schemas --json'],
  contract: [
    'parley contract check',
    'parley contract check --schemas api/schemas --against origin/main',
    'parley contract check --schemas api/schemas --manifest api/operations --against ../released --json',
    'parley contract release',
  ],
  serve: [
    'parley serve agent',
    'parley serve agent --transport websocket --url ws://127.0.0.1:0 --name helper',
    'parley serve agent --registry http://127.0.0.1:8000 --api-key-file keys.txt',
    'parley serve agent --log-level warn > agent.log     # JSON lines; only failed requests',
    'parley serve agent --transport grpc --metrics-url http://127.0.0.1:9464',
  ],
  'serve registry': [
    'parley serve registry',
    'parley serve registry --db agents.db --ttl 90',
    'parley serve registry --transport grpc --db :memory:',
    'parley serve registry --log-level debug',
    'parley serve registry --metrics',
  ],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${fpath[1]} is zsh's, for the shell to expand, not a template.
  completion: ['source <(parley completion bash)', 'parley completion zsh > "${fpath[1]}/_parley"'],
  help: ['parley help', 'parley help stream'],
};

/** The examples of a command (`serve registry` for that role), as the end of its help; empty when it has none. */
export function helpExamples(command: string, args: readonly string[]): string {
  const key = command === 'serve' && args[0] === 'registry' ? 'serve registry' : command;
  const examples = EXAMPLES[key];
  if (!examples) return '';
  return `\nExamples:\n${examples.map((line) => `  ${line}`).join('\n')}\n`;
}
