import { metrics, trace, type Meter, type Tracer } from '@opentelemetry/api';
import { TelemetryOptionsError } from './errors.js';
import { createInstruments, type Instruments } from './instruments.js';

/** How `createTelemetry` reports; every field is optional. */
export type TelemetryOptions = {
  /** Where spans go. Default: `trace.getTracer('indusagi')`, the globally registered provider's. */
  tracer?: Tracer;
  /** Where metrics go. Default: `metrics.getMeter('indusagi')`, the globally registered provider's. */
  meter?: Meter;
  /**
   * Record message contents (prompts, replies, system text, tool inputs and results, memory queries
   * and records) on spans. They may hold personal data, so the default is off, unless the
   * environment sets `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
   */
  captureContent?: boolean;
  /** `gen_ai.agent.name`, and the `invoke_agent {name}` span name. Default: none (`invoke_agent`). */
  agentName?: string;
  /** `gen_ai.provider.name` for a model invoker that does not say its `provider`. */
  providerName?: string;
};

/** The settled options, shared by every decorator of one `createTelemetry`. */
export type Instrumentation = {
  tracer: Tracer;
  instruments: Instruments;
  captureContent: boolean;
  agentName: string | undefined;
  providerName: string | undefined;
};

const SCOPE = 'indusagi';

export function resolveInstrumentation(options: TelemetryOptions): Instrumentation {
  if (typeof options !== 'object' || options === null)
    throw new TelemetryOptionsError(`options must be an object, got ${options === null ? 'null' : typeof options}`);
  const { tracer, meter, captureContent, agentName, providerName } = options;
  if (tracer !== undefined && typeof tracer?.startSpan !== 'function')
    throw new TelemetryOptionsError('`tracer` must be an OpenTelemetry Tracer (it has no startSpan)');
  if (meter !== undefined && typeof meter?.createHistogram !== 'function')
    throw new TelemetryOptionsError('`meter` must be an OpenTelemetry Meter (it has no createHistogram)');
  if (captureContent !== undefined && typeof captureContent !== 'boolean')
    throw new TelemetryOptionsError(`\`captureContent\` must be a boolean, got ${typeof captureContent}`);
  for (const [key, value] of [
    ['agentName', agentName],
    ['providerName', providerName],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value.trim() === ''))
      throw new TelemetryOptionsError(`\`${key}\` must be a non-empty string`);
  }
  return {
    tracer: tracer ?? trace.getTracer(SCOPE),
    instruments: createInstruments(meter ?? metrics.getMeter(SCOPE)),
    captureContent: captureContent ?? globalThis.process?.env?.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true',
    agentName,
    providerName,
  };
}
