// Per-thread CPU time and wake-ups of a process, from Linux's /proc: for telling whether a
// process's CPU goes to its main thread (JavaScript, the event loop) or to V8's and libuv's
// helper threads, and how often each thread went to sleep and woke up again. On-CPU time comes
// from schedstat (nanoseconds; utime and stime count in 10 ms ticks, too coarse for one
// stream); wake-ups are voluntary context switches (the thread blocked: epoll_wait, a futex, a
// read), involuntary ones the scheduler taking the core away. Elsewhere than Linux: null.
//
// Node 20 names every thread `node`, so threads are told apart by the order they were made
// (tids grow): the main thread, then node's platform (its delayed-task thread, V8's worker
// pool of 4: concurrent marking, compilation, sweeping; the inspector's signal thread), all
// started with the process; libuv's thread pool (fs, dns, crypto, zlib) comes later, on its
// first use. Checked with gdb's backtraces of a node 20 process.
import { readFileSync, readdirSync } from 'node:fs';

/** Threads node 20 starts with besides the main one: delayed tasks, 4 V8 workers, the inspector's signal thread. */
const PLATFORM_THREADS = 6;

export interface ThreadUsage {
  /** µs on a CPU. */
  readonly cpu: number;
  readonly voluntary: number;
  readonly involuntary: number;
}

/** A process's threads by name (threads of one name summed: V8 runs several `V8 Worker`s). */
export type ThreadUsages = Map<string, ThreadUsage>;

export function threadUsage(pid: number): ThreadUsages | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  tids.sort((a, b) => Number(a) - Number(b));
  const usages: ThreadUsages = new Map();
  for (const [index, tid] of tids.entries()) {
    let name: string;
    let schedstat: string;
    let status: string;
    try {
      const dir = `/proc/${pid}/task/${tid}`;
      name = readFileSync(`${dir}/comm`, 'utf8').trim();
      schedstat = readFileSync(`${dir}/schedstat`, 'utf8');
      status = readFileSync(`${dir}/status`, 'utf8');
    } catch {
      continue; // the thread ended while being read
    }
    const key = tid === String(pid) ? 'main' : name !== 'node' ? name : index <= PLATFORM_THREADS ? 'V8 platform' : 'libuv pool';
    const previous = usages.get(key) ?? { cpu: 0, voluntary: 0, involuntary: 0 };
    usages.set(key, {
      cpu: previous.cpu + Number(schedstat.split(' ')[0]) / 1000,
      voluntary: previous.voluntary + field(status, 'voluntary_ctxt_switches'),
      involuntary: previous.involuntary + field(status, 'nonvoluntary_ctxt_switches'),
    });
  }
  return usages;
}

/** What each thread used between two samples of one process. */
export function usageSince(before: ThreadUsages, after: ThreadUsages): ThreadUsages {
  const used: ThreadUsages = new Map();
  for (const [name, now] of after) {
    const then = before.get(name) ?? { cpu: 0, voluntary: 0, involuntary: 0 };
    used.set(name, {
      cpu: now.cpu - then.cpu,
      voluntary: now.voluntary - then.voluntary,
      involuntary: now.involuntary - then.involuntary,
    });
  }
  return used;
}

function field(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(status);
  return match ? Number(match[1]) : 0;
}
