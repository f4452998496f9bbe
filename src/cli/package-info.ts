// The installed parley package's own package.json, found from this file whatever the layout:
// src/cli/ when run from a checkout, dist/src/cli/ when installed from npm.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
}

export function packageInfo(): PackageInfo {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Partial<PackageInfo>;
      if (manifest.name === 'parley' && typeof manifest.version === 'string') {
        return { name: manifest.name, version: manifest.version };
      }
    } catch {
      // No package.json here (or not ours): keep climbing.
    }
    const parent = dirname(dir);
    if (parent === dir) return { name: 'parley', version: 'unknown' };
    dir = parent;
  }
}
