// The one-line spinner `parley stream` keeps on a terminal while it waits for events: a
// turning glyph, what the task is doing, how many events came and how long it has run. It is
// drawn on standard error and erased before anything is printed on standard output, so the
// events read as if it were not there; off a terminal nothing of it is ever written.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;
const ERASE = '\r\x1b[2K';

interface ProgressTarget {
  write(text: string): unknown;
}

export class ProgressLine {
  private timer: NodeJS.Timeout | null = null;
  private frame = 0;
  private drawn = false;
  private paused = false;
  private status = 'submitting';
  private events = 0;
  private readonly started = Date.now();

  constructor(private readonly target: ProgressTarget) {}

  start(): void {
    this.draw();
    this.timer = setInterval(() => this.draw(), TICK_MS);
    // A spinner never keeps the process alive on its own.
    this.timer.unref();
  }

  /** Counts one event, and takes its state when it names one. */
  event(status?: string): void {
    this.events++;
    if (status) this.status = status;
  }

  /**
   * Runs `print` (which writes to stdout) with the line erased first; `openLine` says the
   * printed text leaves a line unfinished (a model's tokens), where the spinner must not draw.
   */
  around(print: () => void, openLine = false): void {
    this.erase();
    print();
    this.paused = openLine;
    this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.erase();
  }

  private draw(): void {
    if (this.paused) return;
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const events = `${this.events} event${this.events === 1 ? '' : 's'}`;
    this.target.write(`${ERASE}${FRAMES[this.frame++ % FRAMES.length]} ${this.status} · ${events} · ${seconds}s`);
    this.drawn = true;
  }

  private erase(): void {
    if (!this.drawn) return;
    this.target.write(ERASE);
    this.drawn = false;
  }
}
