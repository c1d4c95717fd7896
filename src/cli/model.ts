import type { ModelInvoker } from '../runtime/contract/model.js';
import { createAnthropicInvoker } from '../providers/anthropic/invoker.js';
import { lazyAnthropicInvoker } from '../providers/anthropic/model.js';
import { DEMO_MODEL_CARD, startDemoServer } from '../demo/index.js';
import { knownModelCards } from '../runtime/models/index.js';
import type { Choice } from './tui/select.js';
import { CliUsageError } from './errors.js';
import { parseModelFlag, type ModelFlag, type ModelProvider } from './model-flag.js';

/** The model a chat talks to, and how to let go of it. */
export type ModelChoice = {
  invokeModel: ModelInvoker;
  model: string;
  /** Set for the demo model, whose tiny window no model card knows. */
  contextWindow?: number;
  maxOutputTokens?: number;
  offline: boolean;
  /** One line for the chat's banner. */
  describe: string;
  close(): Promise<void>;
};

/** Per provider: its key variable, its base URL variable, its model when `--model` names none, its default host. */
const PROVIDERS: Record<ModelProvider, { key: string; baseUrl: string; defaultModel: string; host: string }> = {
  anthropic: { key: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL', defaultModel: 'claude-sonnet-5-5', host: 'api.anthropic.com' },
  openai: { key: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL', defaultModel: 'gpt-5.4-mini', host: 'api.openai.com' },
};

/** The variable that chooses the model when no `--model` is given: `INDUSAGI_MODEL=demo`, `openai:gpt-5.4`... */
export const MODEL_VARIABLE = 'INDUSAGI_MODEL';

/**
 * The model `--model` names, else the one `INDUSAGI_MODEL` names, through its provider's key variable
 * (and base URL variable, when set); with neither, Claude when `ANTHROPIC_API_KEY` is set, else OpenAI's
 * default model when `OPENAI_API_KEY` is. `demo` names the offline demo model whatever keys are set;
 * a provider without the key it needs gets the demo model too, with the reason in its description. The
 * demo model is started here on a loopback port and stopped by `close`.
 */
export async function chooseModel(env: NodeJS.ProcessEnv, flag: ModelFlag | undefined): Promise<ModelChoice> {
  const fromEnv = flag === undefined && env[MODEL_VARIABLE]?.trim() ? parseModelFlag(env[MODEL_VARIABLE]!.trim()) : undefined;
  const wanted = flag ?? fromEnv;
  if (wanted?.provider === 'demo')
    return offlineModel(flag !== undefined ? `chosen by --model ${flag.given}` : `chosen by ${MODEL_VARIABLE}`);
  const provider: ModelProvider | undefined =
    wanted?.provider ?? (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : undefined);
  const settings = provider === undefined ? undefined : PROVIDERS[provider];
  const key = settings === undefined ? '' : (env[settings.key] ?? '');
  if (provider !== undefined && settings !== undefined && key !== '') {
    const model = wanted?.model ?? settings.defaultModel;
    const baseURL = env[settings.baseUrl] || undefined;
    return {
      invokeModel: provider === 'openai' ? await openaiInvoker(key, baseURL) : claude({ apiKey: key, baseURL }),
      model,
      offline: false,
      describe: `${provider === 'openai' ? 'openai:' : ''}${model} via ${baseURL ?? settings.host}`,
      close: async () => {},
    };
  }
  if (wanted === undefined) return offlineModel('no ANTHROPIC_API_KEY or OPENAI_API_KEY is set');
  const source = flag !== undefined ? `--model ${wanted.given}` : `${MODEL_VARIABLE}=${wanted.given}`;
  return offlineModel(`${source} ignored: it needs ${PROVIDERS[wanted.provider].key}`);
}

/** The offline demo model, started on a loopback port; `why` says in the banner why it was chosen. */
export async function offlineModel(why: string): Promise<ModelChoice> {
  const demo = await startDemoServer();
  return {
    invokeModel: claude({ baseURL: demo.baseURL, apiKey: 'offline-demo' }),
    model: DEMO_MODEL_CARD.id,
    contextWindow: DEMO_MODEL_CARD.contextWindow,
    maxOutputTokens: DEMO_MODEL_CARD.maxOutputTokens,
    offline: true,
    describe: `the offline demo model, a scripted stand-in for Claude (${why})`,
    close: () => demo.close(),
  };
}

/** OpenAI's invoker, loading `openai` (an optional peer) only when it is asked for. */
async function openaiInvoker(apiKey: string, baseURL: string | undefined): Promise<ModelInvoker> {
  let OpenAI: typeof import('openai').default;
  try {
    OpenAI = (await import('openai')).default;
  } catch (error) {
    throw new CliUsageError(
      `--model openai:… needs the openai package, which is not installed (npm install openai): ${(error as Error).message}`,
    );
  }
  const { createOpenAIInvoker } = await import('../providers/openai/invoker.js');
  return createOpenAIInvoker(new OpenAI({ apiKey, baseURL }));
}

/** The provider a model card's id belongs to, by its family name. */
export function providerOf(model: string): ModelProvider {
  return /^claude/i.test(model) ? 'anthropic' : 'openai';
}

/**
 * The models `/model` offers: every model a card describes, by provider, those whose provider has no
 * key in `env` shown but not choosable (saying which key they need), and the offline demo model last.
 */
export function modelChoices(env: NodeJS.ProcessEnv): Array<Choice<ModelFlag>> {
  const choices: Array<Choice<ModelFlag>> = [];
  for (const provider of ['anthropic', 'openai'] as const) {
    const key = PROVIDERS[provider].key;
    for (const card of knownModelCards().filter((c) => providerOf(c.id) === provider)) {
      const given = `${provider}:${card.id}`;
      choices.push({
        label: given,
        value: { provider, model: card.id, given },
        detail: `${Math.round(card.contextWindow / 1000)}K window`,
        disabled: env[key] ? undefined : `needs ${key}`,
      });
    }
  }
  choices.push({
    label: 'offline demo model',
    value: { provider: 'demo', given: 'demo' },
    detail: 'a scripted stand-in, no key or network',
  });
  return choices;
}

/** The key variable `flag`'s provider reads, when `env` lacks it. */
export function missingKey(env: NodeJS.ProcessEnv, flag: ModelFlag): string | undefined {
  if (flag.provider === 'demo') return undefined;
  const key = PROVIDERS[flag.provider].key;
  return env[key] ? undefined : key;
}

/**
 * Claude through `new Anthropic(options)`, with `@anthropic-ai/sdk` loaded on the first call, as the
 * runtime's own default model does (providers/anthropic/model.ts): the first prompt shows without it.
 */
function claude(options: { apiKey: string; baseURL?: string }): ModelInvoker {
  return lazyAnthropicInvoker(() =>
    import('@anthropic-ai/sdk').then(({ default: Anthropic }) => createAnthropicInvoker(new Anthropic(options))),
  );
}
