// A log destination that holds lines and writes them in batches: the default of `parley serve`
// when stdout is a pipe or a file. Writing each request's line on its own costs a system call
// per request, 8-28% of a small request's throughput (bench/http); held lines go out when
// BATCH_CHARS of them have gathered, and in any case every FLUSH_MS, so a quiet server's lines
// still reach the collector within about a second.
//
// Why not pino's own destination (sonic-boom) with a minimum length: its write measures the
// byte length of the whole held text on every line, which made a batched line cost more than
// half of what a line written at once did (docs/operations.md, Logs). Here a batch is a list of
// lines joined once, when it is written.
//
// Writes are synchronous, so a flush is complete when it returns and no write is ever in flight
// on another thread: nothing is lost by flushing on exit. The process's `exit` event flushes what
// is held; it runs on process.exit() and after an uncaught exception alike (a signal with no
// handler skips it, which is why the CLI handles SIGINT and SIGTERM and flushes there).
import { writeSync } from 'node:fs';
import type { LogDestination } from './logger.js';

/** About sixty request lines: system calls become rare, and little is held at any time. */
const BATCH_CHARS = 16 * 1024;
const FLUSH_MS = 1000;
/** How long to wait before trying again when the reader's pipe is full. */
const FULL_PIPE_WAIT_MS = 1;

export interface BufferedLog extends LogDestination {
  /** Writes every held line now (synchronously), then calls `done` (as pino's logger.flush asks). */
  flush(done?: (error?: Error) => void): void;
}

/** Buffered lines to file descriptor `fd` (default 1, stdout). */
export function bufferedLog(fd = 1): BufferedLog {
  return new LineBatch(fd);
}

class LineBatch implements BufferedLog {
  private lines: string[] = [];
  private chars = 0;
  /** Set once the descriptor cannot be written (the reader went away): lines are dropped. */
  private broken = false;

  constructor(private readonly fd: number) {
    setInterval(() => this.flush(), FLUSH_MS).unref();
    process.on('exit', () => this.flush());
  }

  write(line: string): void {
    if (this.broken) return;
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.flush();
  }

  flush(done?: (error?: Error) => void): void {
    if (this.lines.length > 0) {
      const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
      this.lines = [];
      this.chars = 0;
      if (!this.broken) this.writeAll(Buffer.from(text, 'utf8'));
    }
    done?.();
  }

  private writeAll(bytes: Buffer): void {
    let rest = bytes;
    while (rest.length > 0) {
      try {
        rest = rest.subarray(writeSync(this.fd, rest));
      } catch (error) {
        // A full pipe on a non-blocking descriptor: the reader is behind, so wait for it, as a
        // log line written at once would.
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(SLEEPER, 0, 0, FULL_PIPE_WAIT_MS);
          continue;
        }
        // EPIPE (the reader left) or a descriptor that cannot be written: serving goes on,
        // the lines cannot.
        this.broken = true;
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') {
          process.stderr.write(`parley: log lines can no longer be written: ${(error as Error).message}\n`);
        }
        return;
      }
    }
  }
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
