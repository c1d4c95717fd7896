// What every invoker shares, whatever its vendor: the limits it reads a model's stream with (an idle
// timeout, a cap on one event's size) and what a model's card says it can take (images, documents, a
// JSON Schema for its answer). The provider folders use it; their public faces re-export what a user sets.
export { streamLimits, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_EVENT_BYTES } from './stream-limits.js';
export type { StreamLimits } from './stream-limits.js';
export { IdleWatch } from './idle-watch.js';
export { CallReading, idleRetry } from './attempts.js';
export { capEvents, capResponse, cappedFetch } from './event-cap.js';
export type { CappedFetchOptions } from './event-cap.js';
export { StreamIdleError, StreamEventTooLargeError, StreamLimitsError, UnsupportedContentError, causeOf } from './errors.js';
export { checkContent, documentText, outputInstruction, withOutputInstruction, nativeOutput } from './content.js';
export { isObjectSchema, strictFit } from './strict-schema.js';
