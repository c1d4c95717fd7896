import Anthropic from '@anthropic-ai/sdk';
import { DEMO_MODEL_CARD, startDemoModel } from '../demo/index.js';

/** The model a chat talks to, and how to let go of it. */
export type ModelChoice = {
  client: Anthropic;
  model: string;
  /** Set for the demo model, whose tiny window no model card knows. */
  contextWindow?: number;
  maxOutputTokens?: number;
  offline: boolean;
  /** One line for the chat's banner. */
  describe: string;
  close(): Promise<void>;
};

const DEFAULT_LIVE_MODEL = 'claude-sonnet-5-5';

/**
 * Claude when `ANTHROPIC_API_KEY` is set (through `ANTHROPIC_BASE_URL` when that is set too);
 * otherwise the offline demo model, started here on a loopback port and stopped by `close`.
 */
export async function chooseModel(env: NodeJS.ProcessEnv, requested: string | undefined): Promise<ModelChoice> {
  const key = env.ANTHROPIC_API_KEY ?? '';
  if (key !== '') {
    const model = requested ?? DEFAULT_LIVE_MODEL;
    const baseURL = env.ANTHROPIC_BASE_URL || undefined;
    return {
      client: new Anthropic({ apiKey: key, baseURL }),
      model,
      offline: false,
      describe: `${model} via ${baseURL ?? 'api.anthropic.com'}`,
      close: async () => {},
    };
  }
  const demo = await startDemoModel();
  const ignored = requested === undefined ? '' : ` (--model ${requested} ignored: it needs ANTHROPIC_API_KEY)`;
  return {
    client: new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo' }),
    model: DEMO_MODEL_CARD.id,
    contextWindow: DEMO_MODEL_CARD.contextWindow,
    maxOutputTokens: DEMO_MODEL_CARD.maxOutputTokens,
    offline: true,
    describe: `the offline demo model, a scripted stand-in for Claude (ANTHROPIC_API_KEY is not set)${ignored}`,
    close: () => demo.close(),
  };
}
