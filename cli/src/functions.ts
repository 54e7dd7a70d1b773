// Hooks and functions in the definition file: trigger, runtime, failure policy, enabled and the
// names of their secrets (never the values). Hosted JavaScript lives in a file of its own beside
// the definition (`functions/<name>.js`), so that a review shows code as code; the definition
// names the file. In memory a JavaScript runtime carries its code, so that a plan compares code.
import type { operations } from '../../generated/dashboard.js';
import { unwrap, type Api } from './api.js';
import type { Destructive, Step } from './plan.js';
import { functionWidening } from './plan-widening.js';

type Fn = operations['getFunction']['responses'][200]['content']['application/json']['data']['function'];
type Trigger = Fn['trigger'];

export type RuntimeSpec =
  { type: 'http'; url: string } | { type: 'javascript'; code: string; privileged?: boolean };

export interface FunctionSpec {
  trigger: Trigger;
  runtime: RuntimeSpec;
  failurePolicy: 'closed' | 'open';
  enabled: boolean;
  /** Names of the function's secrets; their values are set on the dashboard or by the API. */
  env: string[];
}

/** A function as the definition file holds it: JavaScript by file name. */
export type FunctionFileSpec = Omit<FunctionSpec, 'runtime'> & {
  runtime: { type: 'http'; url: string } | { type: 'javascript'; file: string; privileged?: boolean };
};

export const codeFile = (name: string) => `functions/${name}.js`;

const TRIGGER_KEYS = ['type', 'collection', 'access', 'cron'] as const;
function canonicalTrigger(trigger: Trigger): Trigger {
  const out: Record<string, unknown> = {};
  for (const key of TRIGGER_KEYS)
    if (trigger[key] !== undefined && trigger[key] !== null) out[key] = trigger[key];
  return out as Trigger;
}

export function canonicalFunction(spec: FunctionSpec): FunctionSpec {
  const runtime: RuntimeSpec =
    spec.runtime.type === 'http'
      ? { type: 'http', url: spec.runtime.url }
      : {
          type: 'javascript',
          code: spec.runtime.code,
          ...(spec.runtime.privileged ? { privileged: true } : {}),
        };
  return {
    trigger: canonicalTrigger(spec.trigger),
    runtime,
    failurePolicy: spec.failurePolicy ?? 'closed',
    enabled: spec.enabled ?? true,
    env: [...(spec.env ?? [])].sort(),
  };
}

export async function pullFunctions(api: Api, projectId: string): Promise<Record<string, FunctionSpec>> {
  const { functions } = await unwrap(
    api.GET('/api/projects/{projectId}/functions', { params: { path: { projectId } } }),
  );
  return Object.fromEntries(
    functions.map((fn) => [
      fn.name,
      canonicalFunction({
        trigger: fn.trigger,
        runtime: fn.runtime as RuntimeSpec,
        failurePolicy: fn.failurePolicy,
        enabled: fn.enabled,
        env: fn.env,
      }),
    ]),
  );
}

/** The file form of the functions, and the code files to write beside the definition. */
export function functionsToFile(functions: Record<string, FunctionSpec>) {
  const files = new Map<string, string>();
  const specs: Record<string, FunctionFileSpec> = {};
  for (const [name, spec] of Object.entries(functions)) {
    if (spec.runtime.type === 'javascript') {
      files.set(codeFile(name), spec.runtime.code);
      const { code: _code, ...rest } = spec.runtime;
      specs[name] = { ...spec, runtime: { ...rest, file: codeFile(name) } };
    } else specs[name] = spec as FunctionFileSpec;
  }
  return { specs, files };
}

/** The in-memory form: each JavaScript runtime's code read through `read` (relative to the definition). */
export async function functionsFromFile(
  specs: Record<string, FunctionFileSpec> | undefined,
  read: (file: string) => Promise<string>,
): Promise<Record<string, FunctionSpec>> {
  const out: Record<string, FunctionSpec> = {};
  for (const [name, spec] of Object.entries(specs ?? {})) {
    const runtime = spec.runtime;
    const loaded: RuntimeSpec =
      runtime.type === 'javascript'
        ? { type: 'javascript', code: await read(runtime.file), privileged: runtime.privileged }
        : runtime;
    out[name] = canonicalFunction({ ...spec, runtime: loaded });
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function changes(old: FunctionSpec, spec: FunctionSpec): string[] {
  const lines: string[] = [];
  if (!same(old.trigger, spec.trigger))
    lines.push(`~ trigger ${JSON.stringify(old.trigger)} -> ${JSON.stringify(spec.trigger)}`);
  if (old.runtime.type !== spec.runtime.type)
    lines.push(`~ runtime ${old.runtime.type} -> ${spec.runtime.type}`);
  else if (
    spec.runtime.type === 'http' &&
    old.runtime.type === 'http' &&
    old.runtime.url !== spec.runtime.url
  )
    lines.push(`~ url ${old.runtime.url} -> ${spec.runtime.url}`);
  else if (spec.runtime.type === 'javascript' && old.runtime.type === 'javascript') {
    if (old.runtime.code !== spec.runtime.code) lines.push('~ code changed');
    if (Boolean(old.runtime.privileged) !== Boolean(spec.runtime.privileged))
      lines.push(`~ privileged ${Boolean(old.runtime.privileged)} -> ${Boolean(spec.runtime.privileged)}`);
  }
  if (old.failurePolicy !== spec.failurePolicy)
    lines.push(`~ failurePolicy ${old.failurePolicy} -> ${spec.failurePolicy}`);
  if (old.enabled !== spec.enabled) lines.push(`~ enabled ${old.enabled} -> ${spec.enabled}`);
  return lines;
}

async function functionId(api: Api, projectId: string, name: string): Promise<string> {
  const { functions } = await unwrap(
    api.GET('/api/projects/{projectId}/functions', { params: { path: { projectId } } }),
  );
  const found = functions.find((fn) => fn.name === name);
  if (!found) throw new Error(`function ${name} is gone`);
  return found.id;
}

const missingSecrets = (spec: FunctionSpec, have: string[]) =>
  spec.env
    .filter((name) => !have.includes(name))
    .map((name) => `! secret ${name} is not set: set it on the dashboard`);

/** Steps for the functions, matched by name; `only` limits them to one function (functions deploy). */
export function functionSteps(
  current: Record<string, FunctionSpec>,
  desired: Record<string, FunctionSpec>,
  only?: string,
): Step[] {
  const steps: Step[] = [];
  const wanted = (name: string) => only === undefined || only === name;
  for (const [name, spec] of Object.entries(desired)) {
    if (!wanted(name)) continue;
    const old = current[name];
    const body = {
      trigger: spec.trigger,
      runtime: spec.runtime,
      failurePolicy: spec.failurePolicy,
      enabled: spec.enabled,
    };
    if (!old) {
      steps.push({
        summary: `create function ${name} (${spec.trigger.type}, ${spec.runtime.type})`,
        changes: missingSecrets(spec, []),
        destructive: [],
        widening: functionWidening(name, undefined, spec),
        apply: async (api, projectId) => {
          await unwrap(
            api.POST('/api/projects/{projectId}/functions', {
              params: { path: { projectId } },
              body: { name, ...body } as never,
            }),
          );
        },
      });
      continue;
    }
    const lines = changes(old, spec);
    if (lines.length === 0) continue;
    steps.push({
      summary: `update function ${name}`,
      changes: [...lines, ...missingSecrets(spec, old.env)],
      destructive: [],
      widening: functionWidening(name, old, spec),
      apply: async (api, projectId) => {
        await unwrap(
          api.PATCH('/api/projects/{projectId}/functions/{functionId}', {
            params: { path: { projectId, functionId: await functionId(api, projectId, name) } },
            body: body as never,
          }),
        );
      },
    });
  }
  for (const name of Object.keys(current)) {
    if (desired[name] || !wanted(name)) continue;
    const destructive: Destructive[] = [
      { id: `drop-function:${name}`, reason: 'deletes it with its versions and secrets' },
    ];
    steps.push({
      summary: `delete function ${name}`,
      changes: [],
      destructive,
      apply: async (api, projectId) => {
        await unwrap(
          api.DELETE('/api/projects/{projectId}/functions/{functionId}', {
            params: { path: { projectId, functionId: await functionId(api, projectId, name) } },
          }),
        );
      },
    });
  }
  return steps;
}
