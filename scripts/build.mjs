// `npm run build` (and `npm start`, which builds first): tsc's incremental build of src/ and
// generated/ into dist/. A repeated build with nothing changed takes about a second instead of a
// full compile. tsc keeps what it knows in .tmp/build.tsbuildinfo (named in tsconfig.build.json),
// outside dist/ so that it is never shipped; tsc trusts that file and would not notice a dist/
// removed by hand, so without dist/ the file is dropped first and the build starts over.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildInfo = join(root, '.tmp', 'build.tsbuildinfo');
if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) rmSync(buildInfo, { force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '--build', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
process.exit(run.status ?? 1);
