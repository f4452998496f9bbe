// The npm mirror this project is built against carries only the Linux builds of buf's
// platform packages, so `npm install` leaves the others out of package-lock.json, and
// `npm ci` then refuses the lockfile as incomplete. This adds an entry for each platform
// package a locked package names but the lockfile lacks, with its os and cpu, so `npm ci`
// accepts the lockfile and skips the entry on any other platform. Run it after
// `npm install` changes the lockfile (`npm run lockfile`).
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM = /-(darwin|linux|win32)-(arm64|x64|aarch64|armv7)$/;
const OS = { darwin: 'darwin', linux: 'linux', win32: 'win32' };
const CPU = { arm64: 'arm64', aarch64: 'arm64', x64: 'x64', armv7: 'arm' };

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const match = PLATFORM.exec(name);
    if (!match || lock.packages[key]) continue;
    lock.packages[key] = {
      version,
      cpu: [CPU[match[2]]],
      dev: entry.dev,
      optional: true,
      os: [OS[match[1]]],
    };
    added.push(`${name}@${version} (for ${path})`);
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added placeholder lock entries:\n  ${added.join('\n  ')}` : 'lockfile already complete');
