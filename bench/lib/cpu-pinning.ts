// Keeps the load generator and the servers it measures off each other's core: servers on
// CPU 1, the generator on CPU 0, when the machine has two cores and taskset. Without it the
// scheduler may put both on one core for part of a round, which shows up as noise in rates.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Cores available, counted before this process pins itself (the count follows the affinity mask). */
export const CPUS = availableParallelism();

/** Whether processes are pinned; BENCH_PIN=0 turns it off. */
export const PIN = process.env.BENCH_PIN !== '0' && CPUS >= 2 && hasTaskset();

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The command and arguments that run node with `nodeArgs` on the servers' core. */
export function serverCommand(nodeArgs: readonly string[]): [string, string[]] {
  return PIN ? ['taskset', ['-c', '1', process.execPath, ...nodeArgs]] : [process.execPath, [...nodeArgs]];
}

/** Moves this process, all its threads, to the load generator's core. */
export function pinLoadGenerator(): void {
  if (PIN) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
}

export function pinningNote(): string {
  return `node ${process.version}, ${CPUS} CPUs, ${PIN ? 'servers pinned to CPU 1, load generator to CPU 0' : 'no CPU pinning'}`;
}
