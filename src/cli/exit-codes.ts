/**
 * What the `indusagi` command's exit code says, for scripts. Each code is decided in one place
 * (run.ts for 2, the chat and `-p` for the rest); the help lists them from here.
 */
export const EXIT = {
  ok: 0,
  /** A run or command failed while working (the model call, a tool's store, a damaged file). */
  failed: 1,
  /** The command line was refused before any work: an unknown flag, a malformed or unknown id. */
  usage: 2,
  /** `-p`: the run stopped at a tool call that waits for approval (`indusagi chat --session ID`, then /approve). */
  waiting: 3,
  /** Interrupted by Ctrl-C (SIGINT), as shells expect. */
  interrupted: 130,
} as const;

export const EXIT_CODES: ReadonlyArray<readonly [number, string]> = [
  [EXIT.ok, 'done (a piped chat: every prompt and command succeeded)'],
  [EXIT.failed, 'a run or command failed (the reason is on stderr, or in the chat)'],
  [EXIT.usage, 'the command line was refused before any work was done'],
  [EXIT.waiting, '-p: the run stopped at a tool call waiting for approval'],
  [EXIT.interrupted, 'interrupted (Ctrl-C)'],
];
