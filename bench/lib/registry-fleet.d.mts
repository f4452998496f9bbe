// Types of registry-fleet.mjs for the TypeScript side of the benchmark.
import type { AgentCard, RegistryStatus } from '../../generated/types/index.js';

export declare const ROLES: number;
export declare const TAGS: number;
export declare function fleetCard(
  i: number,
  total: number,
): AgentCard & { name: string; role: string; tags: string[]; version: string; description: string };
export declare function registerFleet(
  register: (card: never) => Promise<RegistryStatus>,
  total: number,
  concurrency?: number,
): Promise<number>;
