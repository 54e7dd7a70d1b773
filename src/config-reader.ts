// Reads settings from the environment: each method checks one value's form and, when it is wrong,
// records a problem and gives the fallback, so that loadConfig (config.ts) can report every
// problem at once.
import { Buffer } from 'node:buffer';

export type Env = Record<string, string | undefined>;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  string(name: string, fallback?: string): string {
    const value = this.optional(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return '';
    }
    return value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if (/^(1|true|yes)$/i.test(raw)) return true;
    if (/^(0|false|no)$/i.test(raw)) return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  /** A comma-separated list of durations such as `30s,2m,1h` (units ms, s, m, h, d). */
  durations(name: string, fallback: string): number[] {
    const raw = this.optional(name) ?? fallback;
    const out: number[] = [];
    for (const item of raw.split(',').map((d) => d.trim())) {
      const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(item);
      if (!match) {
        this.problems.push(`${name} must be durations like 30s,2m,1h (units ms, s, m, h, d), got "${raw}"`);
        return [];
      }
      out.push(Math.round(Number(match[1]) * DURATION_UNITS[match[2]!]!));
    }
    if (out.length > 20) this.problems.push(`${name} allows at most 20 retries`);
    return out;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name) ?? fallback;
    if (!allowed.includes(raw as T)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string, protocols: string[], fallback?: string): string | undefined {
    const raw = this.optional(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL`);
      return undefined;
    }
  }

  requiredUrl(name: string, protocols: string[]): string {
    if (this.optional(name) === undefined) return this.string(name);
    return this.url(name, protocols) ?? '';
  }

  list(name: string): string[] {
    return (this.optional(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  secretBytes(name: string, minBytes: number): Buffer {
    const raw = this.string(name);
    if (!raw) return Buffer.alloc(0);
    const bytes = Buffer.from(raw, 'base64');
    if (bytes.length < minBytes)
      this.problems.push(`${name} must be at least ${minBytes} bytes, base64-encoded`);
    return bytes;
  }
}
