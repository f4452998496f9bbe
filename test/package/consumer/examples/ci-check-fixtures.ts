// A CI step in code: check every JSON file under a folder against the schema its name says
// (`*.task.json` is a task, `*.message.json` a message), print each problem, and fail the job
// when one is invalid. The standalone validators need no set-up and load no schema at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'parley-agents/validators';

const folder = process.argv[2] ?? 'fixtures';
const schemaBySuffix = { '.task.json': 'task', '.message.json': 'message' } as const;

let failures = 0;
for (const file of readdirSync(folder).sort()) {
  const suffix = (Object.keys(schemaBySuffix) as Array<keyof typeof schemaBySuffix>).find((end) => file.endsWith(end));
  if (!suffix) continue;
  const result = validate(schemaBySuffix[suffix], JSON.parse(readFileSync(join(folder, file), 'utf8')));
  if (result.valid) {
    console.log(`ok ${file}`);
    continue;
  }
  failures++;
  for (const issue of result.errors) console.log(`FAIL ${file}${issue.pointer}: ${issue.message}`);
}
process.exitCode = failures > 0 ? 1 : 0;
