// The demo model's card, id and banner: a folder of its own, so that code naming the demo model (createAgent,
// which every import of indusagi/runtime loads) imports these constants without the responder's modules.
import type { ModelCard } from '../../../runtime/contract/index.js';

export const DEMO_MODEL_ID = 'indusagi-offline-demo';

/**
 * The demo model's card. The window is tiny on purpose: a handful of turns (a long story or two, a
 * file read) fills it, so condensation shows up in an ordinary demo conversation.
 */
export const DEMO_MODEL_CARD: ModelCard = { id: DEMO_MODEL_ID, contextWindow: 6_000, maxOutputTokens: 1_536 };

/** What every plain answer starts with, so nobody mistakes the script for Claude. */
export const DEMO_BANNER = '(offline demo model)';
