import { IndusagiError } from '../errors/index.js';

/** An option of `createTelemetry` that cannot work, refused when the telemetry is created. */
export class TelemetryOptionsError extends IndusagiError {
  static override readonly errorName: string = 'TelemetryOptionsError';
  constructor(message: string) {
    super('invalid_telemetry_options', message);
  }
}
