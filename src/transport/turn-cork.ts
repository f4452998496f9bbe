// Writes made in one turn of the event loop leave in one system call. A stream's events often
// come in bursts (a handler yielding what it already has, pipelined answers); written one by
// one, each is a write of its own. The stream is corked at the first write of a turn and
// uncorked once the turn's work (its microtasks included) is done, so nothing waits longer
// than the turn that produced it.

interface Corkable {
  cork(): void;
  uncork(): void;
}

export class TurnCork {
  private held = false;

  constructor(private readonly stream: Corkable) {}

  /** Call before each write. */
  hold(): void {
    if (this.held) return;
    this.held = true;
    this.stream.cork();
    process.nextTick(this.release);
  }

  private readonly release = (): void => {
    this.held = false;
    this.stream.uncork();
  };
}
