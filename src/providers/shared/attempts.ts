import type { ModelRequest, ModelRetry } from '../../runtime/contract/model.js';
import type { IdleWatch } from './idle-watch.js';

/**
 * What one call's attempts share: `onFirstChunk` said once whatever the retries (a retried attempt is
 * one that streamed nothing), and whether any text reached `onText` (after which a stalled attempt is
 * not retried). Its `onText` and `onFirstChunk` stand in for the request's in every attempt.
 */
export class CallReading implements Pick<ModelRequest, 'onText' | 'onFirstChunk'> {
  textStreamed = false;
  private began = false;
  constructor(private readonly request: Pick<ModelRequest, 'onText' | 'onFirstChunk'>) {}
  onFirstChunk = (): void => {
    if (this.began) return;
    this.began = true;
    this.request.onFirstChunk?.();
  };
  onText = (delta: string): void => {
    this.textStreamed = true;
    this.request.onText?.(delta);
  };
}

/**
 * After a failed attempt (the `retriesDone`-th retry, 0 for the first try): when its stream stalled
 * (`watch.idle`), the retry to take at once, reported as `stream idle`; undefined when it failed
 * otherwise. Throws the `StreamIdleError` once text reached `onText`, since a retry would repeat that
 * text, or when `maxRetries` are spent.
 */
export function idleRetry(watch: IdleWatch, reading: CallReading, retriesDone: number, maxRetries: number): ModelRetry | undefined {
  const idle = watch.idle;
  if (idle === undefined) return undefined;
  if (reading.textStreamed || retriesDone >= maxRetries) throw idle;
  return { attempt: retriesDone + 2, delayMs: 0, reason: 'stream idle' };
}
