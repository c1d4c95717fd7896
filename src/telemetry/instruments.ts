import type { Histogram, Meter } from '@opentelemetry/api';
import {
  AGENT_SECONDS_BUCKETS,
  METRIC_EXECUTE_TOOL_DURATION,
  METRIC_INVOKE_AGENT_DURATION,
  METRIC_OPERATION_DURATION,
  METRIC_TIME_TO_FIRST_CHUNK,
  METRIC_TOKEN_USAGE,
  SECONDS_BUCKETS,
  TOKEN_BUCKETS,
} from './conventions.js';

/** The histograms of the GenAI conventions this package records, with their advised buckets. */
export type Instruments = {
  tokenUsage: Histogram;
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
  agentDuration: Histogram;
  toolDuration: Histogram;
};

export function createInstruments(meter: Meter): Instruments {
  const seconds = (name: string, description: string, buckets: number[]) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: buckets } });
  return {
    tokenUsage: meter.createHistogram(METRIC_TOKEN_USAGE, {
      unit: '{token}',
      description: 'Number of input and output tokens used.',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    operationDuration: seconds(METRIC_OPERATION_DURATION, 'GenAI operation duration.', SECONDS_BUCKETS),
    timeToFirstChunk: seconds(METRIC_TIME_TO_FIRST_CHUNK, 'Time to receive the first chunk of a streamed response.', SECONDS_BUCKETS),
    agentDuration: seconds(METRIC_INVOKE_AGENT_DURATION, 'The end-to-end duration of a single agent invocation.', AGENT_SECONDS_BUCKETS),
    toolDuration: seconds(METRIC_EXECUTE_TOOL_DURATION, 'The duration of a single tool execution.', SECONDS_BUCKETS),
  };
}
