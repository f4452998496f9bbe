// The installed parley package's own package.json, found from this file whatever the layout:
// src/cli/ when run from a checkout, dist/src/cli/ when installed from npm. On npm the package
// is named parley-agents (the name parley belongs to another project); the command is parley.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name parley is published under on npm. */
const PACKAGE_NAME = 'parley-agents';

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
}

export function packageInfo(): PackageInfo {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Partial<PackageInfo>;
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') {
        return { name: manifest.name, version: manifest.version };
      }
    } catch {
      // No package.json here (or not ours): keep climbing.
    }
    const parent = dirname(dir);
    if (parent === dir) return { name: PACKAGE_NAME, version: 'unknown' };
    dir = parent;
  }
}
