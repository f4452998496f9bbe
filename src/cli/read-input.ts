// Reads one input of a command: a file path, or `-` for standard input. A file that cannot be
// read is a usage error naming the file and the operating system's reason.
import { readFile } from 'node:fs/promises';
import { UsageError } from './usage-error.js';

export const STDIN = '-';
/** How standard input is named in messages and results. */
const STDIN_LABEL = '<stdin>';

export function inputLabel(path: string): string {
  return path === STDIN ? STDIN_LABEL : path;
}

export async function readInput(path: string): Promise<string> {
  if (path === STDIN) return readStdin();
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const reason = osReason(error);
    throw new UsageError(`cannot read ${path}: ${reason}`, { code: 'unreadable_file', file: path, reason });
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  } catch (error) {
    const reason = osReason(error);
    throw new UsageError(`cannot read ${STDIN_LABEL}: ${reason}`, { code: 'unreadable_file', file: STDIN_LABEL, reason });
  }
  return Buffer.concat(chunks).toString('utf8');
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
};

/** The OS's reason in words, e.g. "no such file or directory", without Node's decoration. */
function osReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && REASONS[code]) return REASONS[code]!;
  const message = error instanceof Error ? error.message : String(error);
  // Node writes "ENOENT: no such file or directory, open 'x'".
  const match = /^[A-Z0-9_]+: ([^,]+)/.exec(message);
  return match ? match[1]! : message;
}
