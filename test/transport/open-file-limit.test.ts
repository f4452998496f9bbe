// The default connection cap: three quarters of the open-file limit read from /proc/self/limits,
// a common limit assumed when it cannot be read, and an explicit max_connections kept as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ASSUMED_OPEN_FILE_LIMIT,
  CONNECTION_SHARE,
  defaultMaxConnections,
  effectiveMaxConnections,
  openFileLimit,
} from '../../src/transport/open-file-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                1048576              files
Max locked memory         8388608              8388608              bytes
`;

test('open-file limit: the soft limit of /proc/self/limits', () => {
  assert.equal(
    openFileLimit(() => LIMITS),
    20000,
  );
  assert.equal(
    openFileLimit(() => LIMITS.replace('20000 ', 'unlimited ')),
    Number.MAX_SAFE_INTEGER,
  );
});

test('open-file limit: null when the file is missing or says nothing readable', () => {
  assert.equal(
    openFileLimit(() => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    }),
    null,
  );
  assert.equal(
    openFileLimit(() => 'Max cpu time unlimited'),
    null,
  );
  assert.equal(
    openFileLimit(() => LIMITS.replace('20000 ', 'many ')),
    null,
  );
});

test('default max_connections: three quarters of the limit, or of the assumed one', () => {
  assert.equal(CONNECTION_SHARE, 0.75);
  assert.equal(defaultMaxConnections(20000), 15000);
  assert.equal(defaultMaxConnections(null), Math.floor(ASSUMED_OPEN_FILE_LIMIT * 0.75));
  assert.equal(defaultMaxConnections(1), 1);
});

test('max_connections 0 is the derived default of this process; any other value is kept', () => {
  assert.equal(effectiveMaxConnections(0), defaultMaxConnections());
  assert.equal(effectiveMaxConnections(8), 8);
  // On Linux the limit is read, not assumed.
  if (process.platform === 'linux') assert.notEqual(openFileLimit(), null);
});
