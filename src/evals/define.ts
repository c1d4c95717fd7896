import type { ModelCard, ModelInvoker } from '../runtime/contract/model.js';
import type { SessionStoreLike } from '../runtime/store/types.js';
import type { EvalProgress, EvalResult, EvaluateOptions } from './types.js';

/**
 * What `indusagi eval FILE` hands the module: the model the command chose (`--model` and the
 * environment, else the offline demo model), already recording or replaying with `--record` /
 * `--replay`, and the session store (`--store`) the cases' sessions go to.
 */
export type EvalContext = {
  /** Give it to the agent (`deps.invokeModel`): with `--replay` it is the recording, with `--record` it records. */
  model: ModelInvoker;
  /** The model id to put in the agent's config. */
  modelId: string;
  /** The model's card when the command knows better than the registry (the demo model's tiny window). */
  card?: Pick<ModelCard, 'contextWindow' | 'maxOutputTokens'>;
  store: SessionStoreLike;
  offline: boolean;
};

/**
 * An evaluation that runs itself instead of `evaluate` (one with no agent to run, such as
 * `memoryRecallEval`): `indusagi eval` calls `run` with its progress bar and reports the result as it
 * reports `evaluate`'s (`--json`, `--html`, `--baseline`).
 */
export type EvalRunner = {
  run(controls: { onProgress?: (progress: EvalProgress) => void; signal?: AbortSignal }): Promise<EvalResult>;
};

/**
 * An evaluation module's default export: its `evaluate` options built from what the command chose, or
 * an evaluation that runs itself (`{ run }`).
 */
export type EvalDefinition<E = any> = (context: EvalContext) => EvaluateOptions<E> | EvalRunner | Promise<EvaluateOptions<E> | EvalRunner>;

/** Types an evaluation module's default export (`export default defineEval(({ model, store }) => ({ ... }))`). */
export function defineEval<E = any>(definition: EvalDefinition<E>): EvalDefinition<E> {
  return definition;
}
