// The `bullmq` package is optional, as `ioredis` is: it is loaded when a replica with a Redis
// store first opens its task queue, so an install without it fails only that queue, with an
// error naming the package.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type BullMq = typeof import('bullmq');

export const loadBullMq: () => Promise<BullMq> = lazyLoader(() => importOptional<BullMq>('bullmq', 'the Redis task queue'));
