// functions deploy: push only the hooks and functions of the definition (all, or one by name).
import type { Command } from 'commander';
import { functionSteps } from '../functions.js';
import { output, paint } from '../output.js';
import { CliError, type GlobalOptions } from '../settings.js';
import { currentAndDesired } from './definition.js';

export function functionCommands(program: Command, globals: () => GlobalOptions) {
  const functions = program.command('functions').description('Hooks and functions of the project');
  functions
    .command('deploy')
    .description('Apply the hooks and functions of the definition file (and their code files), or only one')
    .argument('[name]', 'only this function')
    .option('--file <path>', 'the definition file')
    .option(
      '--allow-destructive <steps>',
      'comma-separated destructive steps to allow (drop-function:<name>)',
    )
    .action(async (name: string | undefined, options: { file?: string; allowDestructive?: string }) => {
      const out = output(Boolean(globals().json));
      const { api, projectId, current, desired } = await currentAndDesired(globals(), options.file);
      if (name && !desired.functions[name] && !current.functions[name])
        throw new CliError(`No function ${name} in the file or the project`);
      const steps = functionSteps(current.functions, desired.functions, name);
      const allowed = new Set((options.allowDestructive ?? '').split(',').map((s) => s.trim()));
      const refused = steps.flatMap((s) => s.destructive).filter((d) => !allowed.has(d.id));
      if (refused.length > 0)
        throw new CliError(
          `Refused: destructive steps not allowed: ${refused.map((d) => d.id).join(', ')}. ` +
            `Re-run with --allow-destructive ${refused.map((d) => d.id).join(',')} if you mean it.`,
        );
      for (const step of steps) {
        try {
          await step.apply(api, projectId);
        } catch (err) {
          throw new CliError(`Stopped at "${step.summary}": ${(err as Error).message}`);
        }
        out.line(`${paint('green', 'done')} ${step.summary}`);
        for (const change of step.changes) out.line(`      ${change}`);
      }
      out.result({ applied: steps.map((s) => s.summary) }, () =>
        out.line(
          steps.length === 0
            ? 'No changes: the functions match the file'
            : `Deployed ${steps.length} change(s)`,
        ),
      );
    });
}
