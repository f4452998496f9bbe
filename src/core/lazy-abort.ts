// An abort signal that costs nothing until someone asks for it. Most requests finish without
// anyone listening for their cancellation; creating an AbortController for each shows up
// on a busy server's profile.
export class LazyAbort {
  private controller: AbortController | null = null;
  private reason: unknown = undefined;
  private aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
