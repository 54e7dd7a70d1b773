// pull, diff and push of the project's definition file.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { createApi } from '../api.js';
import { OLD_SCHEMA_REF, pullDefinition, schemaRef, type ProjectDefinition } from '../definition.js';
import { readDefinition, realPathInside, writeDefinition } from '../definition-file.js';
import { plan, refusalMessage, unconfirmed, type Step } from '../plan.js';
import { output, paint, type Output } from '../output.js';
import {
  CliError,
  DEFINITION_FILE,
  EXIT,
  PROJECT_FILE,
  readProjectFile,
  resolveAuth,
  resolveProject,
  type GlobalOptions,
} from '../settings.js';

/**
 * The definition file: --file as given, else the one mongobaas.json names (or the default), which
 * must stay in the project's folder, links followed.
 */
async function definitionPath(file?: string) {
  if (file) return file;
  const linked = await readProjectFile();
  const name = linked?.definition ?? DEFINITION_FILE;
  await realPathInside(
    process.cwd(),
    name,
    `${linked?.definition ? `${PROJECT_FILE}: ` : ''}the definition file`,
  );
  return name;
}

export async function currentAndDesired(globals: GlobalOptions, file?: string) {
  // The file is read and checked first: a wrong one sends nothing.
  const target = await definitionPath(file);
  const desired = await readDefinition(target);
  const { url, token } = await resolveAuth(globals);
  const projectId = await resolveProject(globals);
  const api = createApi(url, token);
  const current = await pullDefinition(api, projectId);
  return { api, projectId, current, desired, steps: plan(current, desired), file: target };
}

const stepView = (step: Step) => ({
  summary: step.summary,
  changes: step.changes,
  destructive: step.destructive.map((d) => d.id),
  widening: (step.widening ?? []).map((d) => d.id),
});

function printSteps(out: Output, steps: Step[]) {
  if (steps.length === 0) return out.line('No changes: the project matches the file');
  for (const step of steps) {
    const widening = step.widening ?? [];
    const mark =
      step.destructive.length > 0 ? paint('red', '! ') : widening.length > 0 ? paint('yellow', '! ') : '  ';
    out.line(`${mark}${paint('bold', step.summary)}`);
    for (const change of step.changes) out.line(`      ${change}`);
    for (const d of step.destructive) out.line(paint('red', `      destructive: ${d.id} (${d.reason})`));
    for (const d of widening) out.line(paint('yellow', `      widens access: ${d.id} (${d.reason})`));
  }
  const destructive = steps.flatMap((s) => s.destructive.map((d) => d.id));
  const widening = steps.flatMap((s) => (s.widening ?? []).map((d) => d.id));
  out.line();
  out.line(`${steps.length} step(s), ${destructive.length} destructive, ${widening.length} widening access`);
  const flags = [
    ...(destructive.length > 0 ? [`--allow-destructive ${destructive.join(',')}`] : []),
    ...(widening.length > 0 ? [`--allow-widening ${widening.join(',')}`] : []),
  ];
  if (flags.length > 0) out.line(`push needs: ${flags.join(' ')}`);
}

export const list = (value: string, previous: string[] = []) => [
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
      // A $schema of the developer's own is kept; else the one the installation serves.
      const kept = previous?.$schema && previous.$schema !== OLD_SCHEMA_REF ? previous.$schema : undefined;
      await writeDefinition(file, { ...def, $schema: kept ?? schemaRef(url) });
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
    .description(
      'Show what push would change, field by field, marking destructive steps and those that widen access',
    )
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
    .option(
      '--allow-widening <changes>',
      'comma-separated changes that widen access to allow, as diff names them (repeatable)',
      list,
    )
    .action(async (options: { file?: string; allowDestructive?: string[]; allowWidening?: string[] }) => {
      const out = output(Boolean(globals().json));
      const { api, projectId, steps } = await currentAndDesired(globals(), options.file);
      const refused = refusalMessage(unconfirmed(steps, options.allowDestructive, options.allowWidening));
      if (refused) {
        if (!out.json) printSteps(out, steps);
        throw new CliError(refused);
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
