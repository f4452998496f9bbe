// Copies each example file of test/package/consumer/examples/ into docs/consumers.md, in the
// code block after its `<!-- example: FILE -->` marker. The files are the source of truth (the
// pack-and-consume test compiles and runs them); test/package/consumers-guide.test.ts fails
// until this has been run after an example changed.
import { readFileSync, writeFileSync } from 'node:fs';

const GUIDE = 'docs/consumers.md';
const EXAMPLES = 'test/package/consumer/examples/';

const guide = readFileSync(GUIDE, 'utf8');
const quoted = guide.replace(
  /<!-- example: ([\w.-]+) -->\n```(\w*)\n[\s\S]*?```\n/g,
  (_, file, language) => `<!-- example: ${file} -->\n\`\`\`${language}\n${readFileSync(EXAMPLES + file, 'utf8')}\`\`\`\n`,
);
writeFileSync(GUIDE, quoted);
console.log(quoted === guide ? `${GUIDE} already quotes every example as it is` : `${GUIDE} updated`);
