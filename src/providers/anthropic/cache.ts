import type Anthropic from '@anthropic-ai/sdk';
import type { ProviderOptions } from '../../runtime/contract/model.js';
import { AnthropicOptionsError, CacheSettingsError } from './errors.js';

/** Prompt caching of a request: `auto` places cache breakpoints (see docs/usage-and-caching.md), `off` none. */
export type CacheMode = 'auto' | 'off';

/** How long a cache entry lives after its last use. The API's default is `5m`. */
export type CacheTtl = '5m' | '1h';

/** The provider id of the Anthropic invoker: the key of its `providerOptions`. */
export const ANTHROPIC = 'anthropic';

/**
 * `providerOptions.anthropic`: what a config or request may set for the Anthropic invoker. `maxRetries`
 * (default: the client's own, 2 for `new Anthropic()`) and `maxRetryDelayMs` (default 60,000) bound how
 * it retries a call that failed before streaming (429, 529, 5xx, a dropped connection).
 */
export type AnthropicProviderOptions = { cache?: CacheMode; cacheTtl?: CacheTtl; maxRetries?: number; maxRetryDelayMs?: number };

const OPTION_KEYS = new Set(['cache', 'cacheTtl', 'maxRetries', 'maxRetryDelayMs']);

/** The most `cache_control` breakpoints the API accepts in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const CACHE_MODES: readonly CacheMode[] = ['auto', 'off'];
const CACHE_TTLS: readonly CacheTtl[] = ['5m', '1h'];

/** Why `cache`/`cacheTtl` cannot be used, or null when they can (undefined means "the default"). */
export function cacheSettingsProblem(cache: unknown, cacheTtl: unknown): string | null {
  if (cache !== undefined && !CACHE_MODES.includes(cache as CacheMode))
    return `\`cache\` must be "auto" or "off", got ${JSON.stringify(cache)}`;
  if (cacheTtl !== undefined && !CACHE_TTLS.includes(cacheTtl as CacheTtl))
    return `\`cacheTtl\` must be "5m" or "1h", got ${JSON.stringify(cacheTtl)}`;
  return null;
}

/**
 * Reads `providerOptions.anthropic`, throwing for a key or value it does not know (an option that
 * silently does nothing is worse than an error): `CacheSettingsError` for the cache settings,
 * `AnthropicOptionsError` for the rest. Other providers' keys are not ours.
 */
export function anthropicOptions(options: ProviderOptions | undefined): AnthropicProviderOptions {
  const own = options?.[ANTHROPIC];
  if (own === undefined) return {};
  if (typeof own !== 'object' || own === null) throw new AnthropicOptionsError('`providerOptions.anthropic` must be an object');
  for (const key of Object.keys(own)) {
    if (!OPTION_KEYS.has(key))
      throw new AnthropicOptionsError(
        `\`providerOptions.anthropic.${key}\` is not an Anthropic option (known: ${[...OPTION_KEYS].join(', ')})`,
      );
  }
  checkAnthropicOptions(own);
  return own as AnthropicProviderOptions;
}

/** Throws for values of the Anthropic options that cannot work. */
export function checkAnthropicOptions(options: Record<string, unknown>): void {
  const problem = cacheSettingsProblem(options.cache, options.cacheTtl);
  if (problem !== null) throw new CacheSettingsError(problem);
  for (const key of ['maxRetries', 'maxRetryDelayMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) {
      throw new AnthropicOptionsError(`\`${key}\` must be a whole number >= 0, got ${JSON.stringify(value)}`);
    }
  }
}

type Body = Anthropic.MessageStreamParams;
type Marker = Anthropic.CacheControlEphemeral;

/**
 * The `system` parameter. With a breakpoint `marker`, an array of text blocks: the stable text first,
 * carrying the breakpoint, then the volatile text (recalled memory) after it, so a change to the
 * volatile text leaves the tools and stable system cached. Without one, the plain joined string.
 */
export function systemParam(stable: string | undefined, volatile: string | undefined, marker: Marker | undefined): Body['system'] {
  const texts = [stable, volatile].filter((text): text is string => text !== undefined && text !== '');
  if (texts.length === 0) return undefined;
  if (marker === undefined) return texts.join('\n\n');
  const blocks: Anthropic.TextBlockParam[] = [];
  if (stable !== undefined && stable !== '') blocks.push({ type: 'text', text: stable, cache_control: marker });
  if (volatile !== undefined && volatile !== '') blocks.push({ type: 'text', text: volatile });
  return blocks;
}

/**
 * Marks where each call's prefix should be cached, in the API's prefix order (tools, system, messages):
 * the last tool; the system prompt's stable block (placed by `systemParam`); the end of what the
 * previous call sent (the message before the last assistant reply), so this call reads that entry
 * however many blocks were added since; and the last message, so the next call reads this one. That is
 * at most `MAX_CACHE_BREAKPOINTS`. Blocks are replaced, never mutated: they may be shared with the caller.
 */
export function placeMessageBreakpoints(body: Body, marker: Marker): void {
  const tools = body.tools;
  if (tools !== undefined && tools.length > 0)
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: marker } as Anthropic.ToolUnion;
  const messages = body.messages;
  const last = messages.length - 1;
  if (last < 0) return;
  markLastBlock(messages[last], marker);
  let reply = last;
  while (reply >= 0 && messages[reply].role !== 'assistant') reply--;
  const previousEnd = reply - 1;
  if (previousEnd >= 0 && previousEnd !== last) markLastBlock(messages[previousEnd], marker);
}

function markLastBlock(message: Anthropic.MessageParam, marker: Marker): void {
  if (typeof message.content === 'string') {
    message.content = [{ type: 'text', text: message.content, cache_control: marker }];
    return;
  }
  // Thinking blocks cannot carry a breakpoint; the block before them closes the same prefix.
  let index = message.content.length - 1;
  while (index >= 0 && (message.content[index].type === 'thinking' || message.content[index].type === 'redacted_thinking')) index--;
  if (index < 0) return;
  message.content[index] = { ...message.content[index], cache_control: marker } as Anthropic.ContentBlockParam;
}
