import { styleText } from 'node:util';
import { terminalText } from './safe-text.js';

export type StyleFormat = Parameters<typeof styleText>[0];

/**
 * Paints text for one output stream: steering characters in it are always written out as escapes
 * (see `terminalText`), so what a model or a tool put in a painted line cannot act on the terminal;
 * colour only where it is not noise. Paint each piece once: painted text handed to paint again has
 * its colour codes shown as escapes.
 */
export type Paint = (format: StyleFormat, text: string) => string;

/**
 * Colour only for a terminal, and never when `NO_COLOR` is set to anything non-empty (no-color.org):
 * piped output and logs stay free of escape codes.
 */
export function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Paint {
  const enabled = paintsColour(stream, env);
  // styleText would otherwise check process.stdout on its own; the stream painted for decides here.
  return enabled
    ? (format, text) => styleText(format, terminalText(text), { validateStream: false })
    : (_format, text) => terminalText(text);
}

/** Whether `paintFor` the same stream and environment paints in colour. */
export function paintsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '';
}
