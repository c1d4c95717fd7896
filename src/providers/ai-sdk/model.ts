import { AiSdkModelError } from './errors.js';
import type { AiSdkLanguageModel } from './spec.js';

export type { AiSdkLanguageModel } from './spec.js';

/** The specification versions the adapter speaks. */
export const SPECIFICATION_VERSIONS = ['v3', 'v4'] as const;

/** Throws `AiSdkModelError` unless `model` is a language model of a version the adapter speaks. */
export function checkModel(model: unknown): asserts model is AiSdkLanguageModel {
  if (typeof model === 'string') {
    throw new AiSdkModelError(`got the model id "${model}"; pass the provider's model object, e.g. fromAiSdk(openai("${model}"))`);
  }
  const candidate = model as Partial<AiSdkLanguageModel> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.doStream !== 'function') {
    throw new AiSdkModelError('expected an AI SDK language model (an object with doStream)');
  }
  const version = candidate.specificationVersion as string | undefined;
  if (!SPECIFICATION_VERSIONS.includes(version as (typeof SPECIFICATION_VERSIONS)[number])) {
    throw new AiSdkModelError(
      `the model implements specification ${JSON.stringify(version)}; fromAiSdk speaks ${SPECIFICATION_VERSIONS.join(' and ')} (providers for ai 6 and 7)`,
    );
  }
}

/** The provider id a model's options are keyed by: `openai` for `openai.responses`, `anthropic` for `anthropic.messages`. */
export function providerId(model: AiSdkLanguageModel): string {
  return model.provider.split('.')[0];
}
