import { styleText } from 'node:util';

export type StyleFormat = Parameters<typeof styleText>[0];

/** Paints text for one output stream; a no-op where colour would be noise. */
export type Paint = (format: StyleFormat, text: string) => string;

/**
 * Colour only for a terminal, and never when `NO_COLOR` is set to anything non-empty (no-color.org):
 * piped output and logs stay free of escape codes.
 */
export function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Paint {
  const enabled = stream.isTTY === true && (env.NO_COLOR ?? '') === '';
  // styleText would otherwise check process.stdout on its own; the stream painted for decides here.
  return enabled ? (format, text) => styleText(format, text, { validateStream: false }) : (_format, text) => text;
}
