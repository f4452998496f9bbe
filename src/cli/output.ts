// What every `parley` command shares about its output: whether it was asked for JSON, how a
// JSON answer is printed, and how a failure of the server it talked to is reported. A remote
// failure (unreachable, refused, an error answer) exits 1; a usage error exits 2 (main.ts).
// In JSON mode a failure is one `{"error": {...}}` document on standard output, so a script
// reading stdout always gets JSON.

/** Exit statuses, the same for every command (docs/cli.md). */
export const EXIT = {
  ok: 0,
  /** The command ran, and the answer was no: the server failed or refused, a value was invalid. */
  failed: 1,
  /** The command could not run as given: bad arguments, an unreadable or malformed input. */
  usage: 2,
} as const;

/** Whether `--json` is among the options (before any `--`). */
export function wantsJson(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--json') return true;
  }
  return false;
}

/** Whether `--help` or `-h` is among the options (before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** The machine-readable parts of an error a client raised (TransportError and friends carry them). */
function errorFields(error: unknown): { code: string; message: string; status_code?: unknown; request_id?: unknown } {
  const { code, statusCode, requestId } = (error ?? {}) as { code?: unknown; statusCode?: unknown; requestId?: unknown };
  return {
    code: typeof code === 'string' ? code : 'failed',
    message: error instanceof Error ? error.message : String(error),
    ...(statusCode !== undefined && statusCode !== null && { status_code: statusCode }),
    ...(requestId !== undefined && requestId !== null && { request_id: requestId }),
  };
}

/** The `{"error": {...}}` document of a call to the server at `url` that failed; `extra` adds fields of the command's own. */
export function remoteFailure(
  command: string,
  url: string,
  error: unknown,
  extra: Readonly<Record<string, unknown>> = {},
): { error: Record<string, unknown> } {
  return { error: { ...errorFields(error), command, url, ...extra } };
}

/**
 * Reports that talking to `url` failed and returns the exit status: one line on stderr, or in
 * JSON mode the error document on stdout.
 */
export function reportRemoteFailure(command: string, url: string, error: unknown, json: boolean): number {
  const fields = errorFields(error);
  if (json) printJson(remoteFailure(command, url, error));
  else process.stderr.write(`parley: ${command} at ${url} failed: ${fields.message}\n`);
  return EXIT.failed;
}
