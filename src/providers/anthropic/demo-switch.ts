// The one switch that points agents at the offline demo model (issue 41): `INDUSAGI_MODEL=demo`, read
// by `createAgent`, `runAgent` and `anthropic()` here, and by the CLI's commands (src/cli/model.ts).
// It imports nothing, so that model.ts (which `anthropic()` is in) can read it without a cycle.

/** The variable that points every agent `createAgent` makes at the offline demo model: `INDUSAGI_MODEL=demo`. */
export const MODEL_VARIABLE = 'INDUSAGI_MODEL';

/**
 * True when `INDUSAGI_MODEL` is `demo` (or `offline`). Its other values (`openai:gpt-5.4`...) are the
 * command's (`indusagi chat`, `serve`, `worker`), which makes the model itself; a library agent's model
 * is the one its config gives.
 */
export function demoChosen(env: NodeJS.ProcessEnv): boolean {
  const value = env[MODEL_VARIABLE]?.trim().toLowerCase();
  return value === 'demo' || value === 'offline';
}
