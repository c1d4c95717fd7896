// The real OpenTelemetry SDK, in memory: a tracer provider exporting to an InMemorySpanExporter, a
// meter provider read on demand, and the AsyncLocalStorage context manager that carries spans across
// awaits. Registered globally too, so spans other libraries start (the Anthropic SDK's own, a tool's)
// land in the same exporter.
import { context, metrics, trace, type Meter, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';

class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export type HistogramPoint = { attributes: Record<string, unknown>; count: number; sum: number; min?: number; max?: number };

export type Otel = {
  tracer: Tracer;
  meter: Meter;
  /** Every finished span so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The data points of histogram `name`, one per attribute set. */
  histogram(name: string): Promise<HistogramPoint[]>;
  reset(): void;
  shutdown(): Promise<void>;
};

export function startOtel(): Otel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    tracer: tracerProvider.getTracer('indusagi-test'),
    meter: meterProvider.getMeter('indusagi-test'),
    spans: () => exporter.getFinishedSpans(),
    async histogram(name) {
      const { resourceMetrics } = await reader.collect();
      const found = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).filter((metric) => metric.descriptor.name === name);
      return found.flatMap((metric) =>
        (metric.dataPoints as DataPoint<Histogram>[]).map((point) => ({
          attributes: { ...point.attributes },
          count: point.value.count,
          sum: point.value.sum ?? 0,
          min: point.value.min,
          max: point.value.max,
        })),
      );
    },
    reset: () => exporter.reset(),
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
    },
  };
}

/** A span with its children, for asserting a trace's shape. */
export type SpanNode = { span: ReadableSpan; children: SpanNode[] };

/** The finished spans as trees (roots first), children ordered by start time. */
export function spanTrees(spans: readonly ReadableSpan[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>(spans.map((span) => [span.spanContext().spanId, { span, children: [] }]));
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanContext?.spanId;
    const parentNode = parent === undefined ? undefined : nodes.get(parent);
    if (parentNode === undefined) roots.push(node);
    else parentNode.children.push(node);
  }
  const byStart = (a: SpanNode, b: SpanNode) => toNanos(a.span.startTime) - toNanos(b.span.startTime);
  for (const node of nodes.values()) node.children.sort(byStart);
  return roots.sort(byStart);
}

/** A tree as nested names, e.g. `['invoke_agent', ['chat m', ...]]`, the easiest shape to compare. */
export function shape(node: SpanNode): unknown {
  return node.children.length === 0 ? node.span.name : [node.span.name, node.children.map(shape)];
}

export function toNanos([seconds, nanos]: [number, number]): number {
  return seconds * 1e9 + nanos;
}
