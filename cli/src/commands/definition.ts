// pull, diff and push of the project's definition file.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { createApi } from '../api.js';
import { canonical, pullDefinition, serialize, type ProjectDefinition } from '../definition.js';
import { plan, type Step } from '../plan.js';
import { functionsFromFile, type FunctionFileSpec } from '../functions.js';
import { output, paint, type Output } from '../output.js';
import {
  CliError,
  DEFINITION_FILE,
  EXIT,
  readProjectFile,
  resolveAuth,
  resolveProject,
  type GlobalOptions,
} from '../settings.js';

const TOP_LEVEL = new Set(['$schema', 'settings', 'collections', 'webhooks', 'mailTemplates', 'functions']);

async function definitionPath(file?: string) {
  if (file) return file;
  const linked = await readProjectFile();
  return linked?.definition ?? DEFINITION_FILE;
}

export async function readDefinition(file: string): Promise<ProjectDefinition> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CliError(
      missing
        ? `No ${file}: run \`mongobaas pull\` first`
        : `${file} is not valid JSON: ${(err as Error).message}`,
      EXIT.usage,
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`${file} must hold a JSON object`, EXIT.usage);
  const unknown = Object.keys(parsed).filter((key) => !TOP_LEVEL.has(key));
  if (unknown.length > 0)
    throw new CliError(
      `${file}: unknown key ${unknown.map((k) => `"${k}"`).join(', ')} (expected ${[...TOP_LEVEL].join(', ')})`,
      EXIT.usage,
    );
  const { functions, ...rest } = parsed as Omit<ProjectDefinition, 'functions'> & {
    functions?: Record<string, FunctionFileSpec>;
  };
  // Code files are named relative to the definition file, and must stay beside it.
  const base = path.dirname(path.resolve(file));
  const read = async (name: string) => {
    const target = path.resolve(base, name);
    if (!target.startsWith(base + path.sep))
      throw new CliError(`${file}: a function's file must be inside ${base}: ${name}`, EXIT.usage);
    try {
      return await readFile(target, 'utf8');
    } catch {
      throw new CliError(`${file} names ${name}, which cannot be read`, EXIT.usage);
    }
  };
  return canonical({ ...rest, functions: await functionsFromFile(functions, read) } as ProjectDefinition);
}

/** Writes the definition and its functions' code files beside it. */
export async function writeDefinition(file: string, def: ProjectDefinition): Promise<void> {
  const { text, files } = serialize(def);
  const base = path.dirname(path.resolve(file));
  for (const [name, code] of files) {
    await mkdir(path.dirname(path.join(base, name)), { recursive: true });
    await writeFile(path.join(base, name), code);
  }
  await writeFile(file, text);
}

export async function currentAndDesired(globals: GlobalOptions, file?: string) {
  const { url, token } = await resolveAuth(globals);
  const projectId = await resolveProject(globals);
  const api = createApi(url, token);
  const target = await definitionPath(file);
  const desired = await readDefinition(target);
  const current = await pullDefinition(api, projectId);
  return { api, projectId, current, desired, steps: plan(current, desired), file: target };
}

const stepView = (step: Step) => ({
  summary: step.summary,
  changes: step.changes,
  destructive: step.destructive.map((d) => d.id),
});

function printSteps(out: Output, steps: Step[]) {
  if (steps.length === 0) return out.line('No changes: the project matches the file');
  for (const step of steps) {
    const mark = step.destructive.length > 0 ? paint('red', '! ') : '  ';
    out.line(`${mark}${paint('bold', step.summary)}`);
    for (const change of step.changes) out.line(`      ${change}`);
    for (const d of step.destructive) out.line(paint('red', `      destructive: ${d.id} (${d.reason})`));
  }
  const destructive = steps.flatMap((s) => s.destructive.map((d) => d.id));
  out.line();
  out.line(`${steps.length} step(s), ${destructive.length} destructive`);
  if (destructive.length > 0) out.line(`push needs: --allow-destructive ${destructive.join(',')}`);
}

const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

export function definitionCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('pull')
    .description(
      'Write the project definition (settings, collections, RLS, indexes, webhooks, mail templates) to the file',
    )
    .option('--file <path>', `the definition file (default: from mongobaas.json, else ${DEFINITION_FILE})`)
    .action(async (options: { file?: string }) => {
      const { url, token } = await resolveAuth(globals());
      const projectId = await resolveProject(globals());
      const def = await pullDefinition(createApi(url, token), projectId);
      const file = await definitionPath(options.file);
      let previous: ProjectDefinition | undefined;
      try {
        previous = JSON.parse(await readFile(file, 'utf8')) as ProjectDefinition;
      } catch {
        previous = undefined;
      }
      await writeDefinition(file, { ...def, ...(previous?.$schema ? { $schema: previous.$schema } : {}) });
      const counts = {
        collections: Object.keys(def.collections).length,
        webhooks: def.webhooks.length,
        mailTemplates: Object.keys(def.mailTemplates).length,
        functions: Object.keys(def.functions).length,
      };
      output(Boolean(globals().json)).result({ file: path.resolve(file), ...counts }, () =>
        console.log(
          `Wrote ${file}: ${counts.collections} collections, ${counts.webhooks} webhooks, ${counts.mailTemplates} mail templates, ${counts.functions} functions`,
        ),
      );
    });

  program
    .command('diff')
    .description('Show what push would change, field by field, marking destructive steps')
    .option('--file <path>', 'the definition file')
    .option('--exit-code', `exit with ${EXIT.changes} when there are changes (0 when none)`)
    .action(async (options: { file?: string; exitCode?: boolean }) => {
      const out = output(Boolean(globals().json));
      const { steps } = await currentAndDesired(globals(), options.file);
      out.result({ steps: steps.map(stepView) }, () => printSteps(out, steps));
      if (options.exitCode && steps.length > 0) process.exitCode = EXIT.changes;
    });

  program
    .command('push')
    .description('Apply the file to the project through the dashboard API; stops at the first refusal')
    .option('--file <path>', 'the definition file')
    .option(
      '--allow-destructive <steps>',
      'comma-separated destructive steps to allow, as diff names them (repeatable)',
      list,
    )
    .action(async (options: { file?: string; allowDestructive?: string[] }) => {
      const out = output(Boolean(globals().json));
      const { api, projectId, steps } = await currentAndDesired(globals(), options.file);
      const allowed = new Set(options.allowDestructive ?? []);
      const refused = steps.flatMap((s) => s.destructive).filter((d) => !allowed.has(d.id));
      if (refused.length > 0) {
        if (!out.json) printSteps(out, steps);
        throw new CliError(
          `Refused: destructive steps not allowed: ${refused.map((d) => d.id).join(', ')}. ` +
            `Re-run with --allow-destructive ${refused.map((d) => d.id).join(',')} if you mean it.`,
        );
      }
      const applied: ReturnType<typeof stepView>[] = [];
      for (const [i, step] of steps.entries()) {
        out.progress(`[${i + 1}/${steps.length}] ${step.summary}`);
        try {
          await step.apply(api, projectId);
        } catch (err) {
          const message = (err as Error).message;
          throw new CliError(
            `Stopped at "${step.summary}" (${applied.length} of ${steps.length} steps applied): ${message}`,
            err instanceof CliError ? err.exitCode : EXIT.failed,
          );
        }
        applied.push(stepView(step));
        out.line(`${paint('green', 'done')} ${step.summary}`);
      }
      out.result({ applied }, () =>
        out.line(
          steps.length === 0 ? 'No changes: the project matches the file' : `Applied ${steps.length} step(s)`,
        ),
      );
    });
}
