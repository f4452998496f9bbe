// What a call ended with, as plain JSON a child process can print: `ok`, or the error's name,
// message and (for MissingDependencyError) the package it names. For fixtures that run with an
// optional package hidden and report back to the test that started them.
export interface CallOutcome {
  readonly ok: boolean;
  readonly name?: string;
  readonly packageName?: string;
  readonly message?: string;
}

export async function callOutcome(run: () => Promise<unknown>): Promise<CallOutcome> {
  try {
    await run();
    return { ok: true };
  } catch (error) {
    const { name, packageName, message } = error as { name: string; packageName?: string; message: string };
    return { ok: false, name, packageName, message };
  }
}
