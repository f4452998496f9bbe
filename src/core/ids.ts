import { randomUUID } from 'node:crypto';

/** A fresh identifier for tasks, messages, artifacts and requests. */
export function newId(): string {
  return randomUUID();
}
