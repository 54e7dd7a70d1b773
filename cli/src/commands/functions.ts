// functions deploy: push only the hooks and functions of the definition (all, or one by name);
// functions logs: a function's invocation log, newest last, with --follow (--json: one document,
// or JSON Lines with --follow).
import type { Command } from 'commander';
import { functionSteps } from '../functions.js';
import { output, paint } from '../output.js';
import { CliError, resolveAuth, resolveProject, type GlobalOptions } from '../settings.js';
import { createApi, unwrap } from '../api.js';
import { currentAndDesired, list } from './definition.js';
import { refusalMessage, unconfirmed } from '../plan.js';

export function functionCommands(program: Command, globals: () => GlobalOptions) {
  const functions = program.command('functions').description('Hooks and functions of the project');
  functions
    .command('deploy')
    .description('Apply the hooks and functions of the definition file (and their code files), or only one')
    .argument('[name]', 'only this function')
    .option('--file <path>', 'the definition file')
    .option(
      '--allow-destructive <steps>',
      'comma-separated destructive steps to allow (drop-function:<name>; repeatable)',
      list,
    )
    .option(
      '--allow-widening <changes>',
      'comma-separated changes that widen access to allow (access:<name>, privileged:<name>, ...; repeatable)',
      list,
    )
    .action(
      async (
        name: string | undefined,
        options: { file?: string; allowDestructive?: string[]; allowWidening?: string[] },
      ) => {
        const out = output(Boolean(globals().json));
        const { api, projectId, current, desired } = await currentAndDesired(globals(), options.file);
        if (name && !desired.functions[name] && !current.functions[name])
          throw new CliError(`No function ${name} in the file or the project`);
        const steps = functionSteps(current.functions, desired.functions, name);
        const refused = refusalMessage(unconfirmed(steps, options.allowDestructive, options.allowWidening));
        if (refused) throw new CliError(refused);
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
      },
    );

  functions
    .command('logs')
    .description("A function's invocation log: status, duration, version, error and log lines (newest last)")
    .argument('<name>', 'the function')
    .option('--limit <n>', 'entries to show first (1-100)', (v) => Number.parseInt(v, 10), 20)
    .option('--follow', 'keep printing new invocations until interrupted')
    .action(async (name: string, options: { limit: number; follow?: boolean }) => {
      const { url, token } = await resolveAuth(globals());
      const projectId = await resolveProject(globals());
      const api = createApi(url, token);
      const out = output(Boolean(globals().json));
      const { functions } = await unwrap(
        api.GET('/api/projects/{projectId}/functions', { params: { path: { projectId } } }),
      );
      const fn = functions.find((f) => f.name === name);
      if (!fn) throw new CliError(`No function ${name} in the project`);
      const seen = new Set<string>();
      const page = async (limit: number) =>
        (
          await unwrap(
            api.GET('/api/projects/{projectId}/functions/{functionId}/invocations', {
              params: { path: { projectId, functionId: fn.id }, query: { limit } },
            }),
          )
        ).invocations;
      type Invocation = Awaited<ReturnType<typeof page>>[number];
      const print = (entry: Invocation) => {
        if (seen.has(entry.id)) return;
        seen.add(entry.id);
        if (out.json) return void process.stdout.write(JSON.stringify(entry) + '\n');
        const mark = entry.status === 'ok' ? paint('green', entry.status) : paint('red', entry.status);
        console.log(`${entry.at}  ${mark}  v${entry.version}  ${entry.trigger}  ${entry.durationMs} ms`);
        if (entry.error) console.log(`    ${entry.error.stack ?? entry.error.message}`);
        for (const line of entry.logs) console.log(`    [${line.level}] ${line.message}`);
      };
      const first = (await page(options.limit)).reverse();
      if (out.json && !options.follow) return out.result({ invocations: first }, () => {});
      first.forEach(print);
      while (options.follow) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        (await page(100)).reverse().forEach(print);
      }
    });
}
