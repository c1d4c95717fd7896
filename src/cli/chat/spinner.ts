const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;

/**
 * A one-line "waiting for the model" indicator for a terminal. It draws on the current line and
 * erases itself completely before anything else is written, so it never ends up in the transcript.
 * Off a terminal it does nothing: piped output carries no carriage returns.
 */
export class Spinner {
  private timer: NodeJS.Timeout | null = null;
  private frame = 0;

  constructor(
    private readonly out: { write(text: string): unknown },
    private readonly enabled: boolean,
  ) {}

  start(label: string): void {
    if (!this.enabled || this.timer !== null) return;
    const draw = () => {
      this.out.write(`\r${FRAMES[this.frame++ % FRAMES.length]} ${label}`);
    };
    draw();
    this.timer = setInterval(draw, INTERVAL_MS);
    // A spinner alone must not keep the process alive.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
    this.out.write('\r\x1b[2K');
  }
}
