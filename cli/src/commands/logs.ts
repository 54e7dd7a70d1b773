// logs: the project's request log, newest last; --follow keeps polling for new entries. With
// --json: one JSON document, or with --follow one entry per line (JSON Lines), as it comes.
import type { Command } from 'commander';
import { createApi, unwrap } from '../api.js';
import { output } from '../output.js';
import { resolveAuth, resolveProject, type GlobalOptions } from '../settings.js';

const FOLLOW_MS = 2000;

export function logsCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('logs')
    .description("The project's recent public API requests (newest last); --follow waits for more")
    .option('--status <class>', 'only 2xx, 3xx, 4xx or 5xx')
    .option('--path <prefix>', 'only paths starting with this')
    .option('--limit <n>', 'entries to show first (1-200)', (v) => Number.parseInt(v, 10), 50)
    .option('--follow', 'keep printing new entries until interrupted')
    .action(
      async (options: {
        status?: '2xx' | '3xx' | '4xx' | '5xx';
        path?: string;
        limit: number;
        follow?: boolean;
      }) => {
        const { url, token } = await resolveAuth(globals());
        const projectId = await resolveProject(globals());
        const api = createApi(url, token);
        const out = output(Boolean(globals().json));
        const seen = new Set<string>();
        const page = async (limit: number) =>
          unwrap(
            api.GET('/api/projects/{projectId}/request-log', {
              params: { path: { projectId }, query: { status: options.status, path: options.path, limit } },
            }),
          );
        type Entry = Awaited<ReturnType<typeof page>>['entries'][number];
        const print = (entry: Entry) => {
          if (seen.has(entry.id)) return;
          seen.add(entry.id);
          if (out.json) process.stdout.write(JSON.stringify(entry) + '\n');
          else
            console.log(
              `${entry.at}  ${entry.status}  ${entry.method.padEnd(6)} ${entry.path}  ${entry.durationMs.toFixed(1)} ms  ${entry.keyKind ?? '-'}`,
            );
        };
        const first = await page(options.limit);
        if (!first.enabled) console.error('The request log is turned off on this installation');
        if (out.json && !options.follow)
          return out.result({ enabled: first.enabled, entries: first.entries.reverse() }, () => {});
        first.entries.reverse().forEach(print);
        while (options.follow) {
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS));
          (await page(200)).entries.reverse().forEach(print);
        }
      },
    );
}
