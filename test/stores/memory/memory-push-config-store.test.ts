// The in-process store of A2A push-notification configs keeps the rows every store keeps
// (test/support/push-config-store-rows.ts), on the test's clock.
import { describe } from 'node:test';
import { MemoryPushConfigStore } from '../../../src/stores/memory/memory-push-config-store.js';
import { pushConfigStoreRows } from '../../support/push-config-store-rows.js';

describe('MemoryPushConfigStore', () => {
  pushConfigStoreRows((bounds = {}) => {
    let now = 1_000_000;
    return { store: new MemoryPushConfigStore({ ...bounds, now: () => now }), advance: (ms) => (now += ms) };
  });
});
