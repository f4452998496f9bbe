// The one error kind the `parley` command reports as "you asked for something that cannot be
// done": a bad option, an unknown schema, a file that cannot be read or is not JSON. The
// command prints its message (never a stack trace) and exits with status 2.

/** Machine-readable detail of a usage error, printed as `{error: {...}}` in JSON mode. */
export interface UsageErrorDetails {
  /** Stable identifier: `usage`, `unknown_command`, `unknown_schema`, `unreadable_file`, `invalid_json`, `internal`. */
  readonly code: string;
  readonly [key: string]: unknown;
}

export class UsageError extends Error {
  readonly exitCode = 2;
  readonly details: UsageErrorDetails;

  constructor(message: string, details: UsageErrorDetails = { code: 'usage' }) {
    super(message);
    this.name = 'UsageError';
    this.details = details;
  }

  get code(): string {
    return this.details.code;
  }

  /** The `{error: {...}}` document printed in JSON mode. */
  toJSON(): { error: Record<string, unknown> } {
    return { error: { ...this.details, message: this.message } };
  }
}
