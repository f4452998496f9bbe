// An error that escaped a connection, call or stream handler: a bug, or input that no check
// foresaw. The caller ends the connection or call it happened on; this only reports it, so
// the failure is seen without taking the process (and every other connection) down with it.

/** Reports an escaped error on stderr, naming where it escaped. */
export function reportEscapedError(where: string, error: unknown): void {
  console.error(`parley: an error escaped ${where}; only its connection or call was ended.`, error);
}
