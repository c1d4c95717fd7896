// Claude as a model an agent takes (`anthropic('claude-sonnet-5-5')`), without loading `@anthropic-ai/sdk`
// until the first call: `createAgent`'s default model is built here, so importing `indusagi/runtime` (or
// the root) loads no vendor SDK. Nothing in this file may import the SDK, or a file that does, statically.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelInvoker, ModelRequest, ModelReply } from '../../runtime/contract/model.js';
import { boundModel } from '../../runtime/models/resolve.js';
import { ANTHROPIC, anthropicOptions, checkAnthropicOptions } from './cache.js';
import { checkAnthropicControls } from './check-controls.js';
import { demoChosen } from './demo-switch.js';
import type { AnthropicClientLike } from './client.js';
import { MissingApiKeyError } from './errors.js';
import type { AnthropicInvokerOptions } from './invoker.js';

export type AnthropicModelOptions = Omit<AnthropicInvokerOptions, 'model'> & {
  /**
   * The client to call through (`new Anthropic({ apiKey })`, `new AnthropicBedrock()`). Default:
   * `new Anthropic()`, made on the first call, which reads `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`.
   */
  client?: AnthropicClientLike;
};

/**
 * Claude model `model` as a `ModelInvoker` that carries it (`modelId`, and `card` when given), for an
 * agent's `model`: `createAgent({ model: anthropic('claude-sonnet-5-5', { cacheTtl: '1h' }) })`. The
 * options are `createAnthropicInvoker`'s (`cache`, `cacheTtl`, `maxRetries`, `maxRetryDelayMs`, `card`)
 * and the `client`. `@anthropic-ai/sdk` and the streaming invoker are loaded on the first call, not
 * before. Throws at once: `MissingApiKeyError` when no `client` is given and the environment holds no
 * Anthropic credentials (see `anthropicCredentials`; with `INDUSAGI_MODEL=demo` on its first call instead,
 * since an agent then calls the demo model), `CacheSettingsError`/`AnthropicOptionsError` for
 * options that cannot work, `ModelChoiceError` for an empty model id, `ModelCardError` for a bad card.
 */
export function anthropic(model: string, options: AnthropicModelOptions = {}): ModelInvoker {
  return lazyClaude(model, options, 'Set it, or pass `{ client }` (an Anthropic client with its own credentials).');
}

/**
 * `anthropic(model, options)`, with what to say about a missing key: `createAgent` names its own
 * remedies (`deps.client`, another provider's model).
 */
export function lazyClaude(model: string, options: AnthropicModelOptions, remedy: string): ModelInvoker {
  const { client, ...rest } = options ?? {};
  checkAnthropicOptions(rest);
  const identity = boundModel({ model, card: rest.card }, 'anthropic');
  const missing = client === undefined ? anthropicCredentials(process.env) : null;
  // Under the demo switch the agent that takes this model talks to the demo model instead, so a missing
  // key is no reason to refuse making it (the docs' `createAgent({ model: anthropic(...) })` runs as
  // written). It is still no reason to call Claude without one: a call refuses the same way.
  if (missing !== null && !demoChosen(process.env)) throw new MissingApiKeyError(missing, remedy);
  const invoke = lazyAnthropicInvoker(async () => {
    if (missing !== null) throw new MissingApiKeyError(missing, remedy);
    return import('./sdk-invoker.js').then((sdk) => sdk.sdkInvoker(client, { ...rest, model }));
  });
  return Object.assign(invoke, identity);
}

/**
 * A Claude invoker that gets the real one from `load` on its first call (which is where a vendor SDK is
 * imported), tagged as Anthropic's (`provider`, `checkOptions`, `checkControls`) so requests are checked
 * before anything loads. The runtime's default model and the CLI's chat both build Claude this way.
 */
export function lazyAnthropicInvoker(load: () => Promise<ModelInvoker>): ModelInvoker {
  let loading: Promise<ModelInvoker> | undefined;
  const loaded = (): Promise<ModelInvoker> => {
    if (loading === undefined) {
      const pending = load();
      loading = pending;
      // A failed load is tried again on the next call rather than remembered.
      pending.catch(() => {
        if (loading === pending) loading = undefined;
      });
    }
    return loading;
  };
  const invoke = async (request: ModelRequest): Promise<ModelReply> => (await loaded())(request);
  return Object.assign(invoke, {
    provider: ANTHROPIC,
    checkOptions: (given: ModelRequest['providerOptions']) => void anthropicOptions(given),
    checkControls: checkAnthropicControls,
  });
}

/**
 * Null when `new Anthropic()` would find credentials in `env`, else the variable to set
 * (`ANTHROPIC_API_KEY`). The SDK takes `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, a profile
 * (`ANTHROPIC_PROFILE`, or an Anthropic config folder, `ANTHROPIC_CONFIG_DIR` or `~/.config/anthropic`),
 * or workload identity federation (`ANTHROPIC_FEDERATION_RULE_ID`); any of them will do here, and the
 * SDK says on the first call if it cannot use what it found.
 */
export function anthropicCredentials(env: NodeJS.ProcessEnv): string | null {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_PROFILE', 'ANTHROPIC_FEDERATION_RULE_ID'].some(set)) return null;
  if (set('ANTHROPIC_CONFIG_DIR')) return null;
  const base = set('XDG_CONFIG_HOME') ? env.XDG_CONFIG_HOME! : set('HOME') ? join(env.HOME!, '.config') : undefined;
  const folders = [base && join(base, 'anthropic'), set('APPDATA') ? join(env.APPDATA!, 'Anthropic') : undefined];
  if (folders.some((folder) => folder !== undefined && existsSync(join(folder, 'configs')))) return null;
  return 'ANTHROPIC_API_KEY';
}
