import type { ModelCard, ModelInvoker } from '../contract/model.js';
import { definedOnly, modelCard, modelFamily } from './cards.js';
import { checkModelCard } from './check.js';
import { ModelChoiceError } from './errors.js';

/** A model as an agent runs it: the invoker that calls it, its id (what requests name) and its card. */
export type ResolvedModel = { invoker: ModelInvoker; modelId: string; card: ModelCard };

/** A config's corrections to a card, for one agent: they win over the invoker's card and the registry's. */
export type CardOverrides = { contextWindow?: number; maxOutputTokens?: number };

/** The model an invoker is built for: its `modelId`, else its card's id; undefined for one that calls whatever a request names. */
export function modelIdOf(invoker: ModelInvoker): string | undefined {
  return invoker.modelId ?? invoker.card?.id;
}

/**
 * The one place a model given as `string | ModelInvoker` becomes an invoker, an id and a card (an agent's
 * `config.model`, and a run's model choice). An invoker brings its own id and card. A string names the
 * model `invoker` is to call, which must then not be built for another model. The card is the invoker's
 * (re-keyed to the id, since requests name the model by it), else the registry's (`modelCard`:
 * registered, built in, or `DEFAULT_MODEL_CARD`); `overrides` win over either. Throws `ModelChoiceError`
 * for a model that cannot be used that way, `ModelCardError` for an invoker's card that cannot be right.
 */
export function resolveModel(model: string | ModelInvoker, invoker?: ModelInvoker, overrides: CardOverrides = {}): ResolvedModel {
  let chosen: ModelInvoker;
  let modelId: string;
  if (typeof model === 'function') {
    chosen = model;
    const own = modelIdOf(model);
    if (own === undefined || own.trim() === '') {
      throw new ModelChoiceError(
        'The model invoker does not say which model it calls (no `modelId`): build it for one model, e.g. ' +
          "createOpenAIInvoker(client, { model: 'gpt-5.4' }), or give the model id as `model` and the invoker as `deps.invokeModel`",
      );
    }
    modelId = own;
  } else if (typeof model === 'string' && model.trim() !== '') {
    if (typeof invoker !== 'function') throw new ModelChoiceError(`Nothing can call model "${model}": no model invoker was given`);
    const bound = modelIdOf(invoker);
    if (bound !== undefined && bound !== model) {
      throw new ModelChoiceError(
        `The model is "${model}" but its invoker is built for "${bound}"; give the invoker itself as the model, or build one for "${model}"`,
      );
    }
    chosen = invoker;
    modelId = model;
  } else {
    throw new ModelChoiceError(`\`model\` must be a non-empty model id or a ModelInvoker, got ${describe(model)}`);
  }
  const own = chosen.card;
  if (own === undefined) return { invoker: chosen, modelId, card: modelCard(modelId, overrides) };
  checkModelCard(own);
  return { invoker: chosen, modelId, card: { ...own, id: modelId, ...definedOnly(overrides) } };
}

/**
 * The card for each model a reply may name, for pricing what an agent's invoker answered with
 * (`sessionCost(nodes, cardLookup(invoker))`): the cards the invoker and those it routes to
 * (`models`) carry, by model id, card id or their dated snapshots' family, else the registry's.
 */
export function cardLookup(invoker: ModelInvoker | undefined): (model: string) => ModelCard {
  const own = new Map<string, ModelCard>();
  const seen = new Set<ModelInvoker>();
  const visit = (current: ModelInvoker): void => {
    if (seen.has(current)) return;
    seen.add(current);
    const card = current.card;
    if (card !== undefined) {
      for (const id of [current.modelId, card.id]) if (id !== undefined && !own.has(id)) own.set(id, { ...card, id });
    }
    for (const routed of current.models ?? []) visit(routed);
  };
  if (invoker !== undefined) visit(invoker);
  return (model) => {
    const card = own.get(model) ?? own.get(modelFamily(model));
    return card === undefined ? modelCard(model) : { ...card, id: model };
  };
}

/**
 * What describes `invoker` besides calling it (`provider`, `modelId`, `card`, `models`, `checkOptions`,
 * `checkControls`), for a wrapper that must stand in for it (telemetry's traced invoker): a wrapper that
 * dropped them would lose the model's card and its checks.
 */
export function invokerTraits(invoker: ModelInvoker): InvokerTraits {
  const traits: InvokerTraits = {};
  if (invoker.provider !== undefined) traits.provider = invoker.provider;
  if (invoker.modelId !== undefined) traits.modelId = invoker.modelId;
  if (invoker.card !== undefined) traits.card = invoker.card;
  if (invoker.models !== undefined) traits.models = invoker.models;
  if (invoker.checkOptions !== undefined) traits.checkOptions = invoker.checkOptions.bind(invoker);
  if (invoker.checkControls !== undefined) traits.checkControls = invoker.checkControls.bind(invoker);
  return traits;
}

/** The properties of a `ModelInvoker` other than the call itself. */
export type InvokerTraits = { -readonly [K in keyof ModelInvoker]?: ModelInvoker[K] };

/**
 * The `modelId` and `card` a provider's factory puts on the invoker it builds from its `model` and `card`
 * options: a card without a model names the model by its id. Throws `ModelChoiceError` for a model that
 * is not a non-empty string, `ModelCardError` for a card that cannot be right.
 */
export function boundModel(options: { model?: unknown; card?: unknown }, where: string): Pick<InvokerTraits, 'modelId' | 'card'> {
  const { model, card } = options;
  const traits: Pick<InvokerTraits, 'modelId' | 'card'> = {};
  if (model !== undefined) {
    if (typeof model !== 'string' || model.trim() === '')
      throw new ModelChoiceError(`${where}: \`model\` must be a non-empty model id, got ${describe(model)}`);
    traits.modelId = model;
  }
  if (card !== undefined) {
    checkModelCard(card as ModelCard);
    traits.card = { ...(card as ModelCard) };
    traits.modelId ??= (card as ModelCard).id;
  }
  return traits;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}
