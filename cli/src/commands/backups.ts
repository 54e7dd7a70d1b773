// backup, backups list, backup download, restore (the dashboard's backup API), and logs.
import { createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { createApi, unwrap, type Api } from '../api.js';
import { output, type Output } from '../output.js';
import { CliError, resolveAuth, resolveProject, type GlobalOptions } from '../settings.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const POLL_MS = 1000;

async function connect(globals: GlobalOptions) {
  const { url, token } = await resolveAuth(globals);
  return { url, token, api: createApi(url, token), projectId: await resolveProject(globals) };
}

type Job = { id: string; state: string; error?: string | null; progress?: unknown };

/** Polls a job until it is done or failed, printing its state changes as progress. */
async function waitFor(out: Output, read: () => Promise<Job>): Promise<Job> {
  let last = '';
  for (;;) {
    const job = await read();
    if (job.state !== last) out.progress(`${job.id}: ${(last = job.state)}`);
    if (job.state === 'done') return job;
    if (job.state === 'failed') throw new CliError(`Job ${job.id} failed: ${job.error ?? 'no reason given'}`);
    await sleep(POLL_MS);
  }
}

async function backupJob(api: Api, projectId: string, backupId: string) {
  const { backups } = await unwrap(
    api.GET('/api/projects/{projectId}/backups', { params: { path: { projectId } } }),
  );
  const found = backups.find((b) => b.id === backupId);
  if (!found) throw new CliError(`No backup ${backupId} in this project`);
  return found;
}

export function backupCommands(program: Command, globals: () => GlobalOptions) {
  const out = () => output(Boolean(globals().json));
  const backup = program.command('backup').description('Back the project up, or download a backup');
  backup
    .command('create', { isDefault: true })
    .description('Queue a backup of the project (admins); --wait follows it to the end')
    .option('--no-users', 'leave the end users (and their password hashes) out')
    .option('--wait', 'wait until the backup is done')
    .action(async (options: { users: boolean; wait?: boolean }) => {
      const { api, projectId } = await connect(globals());
      let { backup: job } = await unwrap(
        api.POST('/api/projects/{projectId}/backups', {
          params: { path: { projectId } },
          body: { includeUsers: options.users },
        }),
      );
      if (options.wait) job = (await waitFor(out(), () => backupJob(api, projectId, job.id))) as typeof job;
      out().result(job, () => console.log(`Backup ${job.id}: ${job.state}`));
    });
  backup
    .command('download')
    .description('Download a done backup to a file, checking its SHA-256')
    .argument('<backupId>', 'the backup id (see `mongobaas backups list`)')
    .option('--out <file>', 'where to write the archive (default: backup-<id>.tar.gz)')
    .action(async (backupId: string, options: { out?: string }) => {
      const { api, projectId, url, token } = await connect(globals());
      const link = await unwrap(
        api.POST('/api/projects/{projectId}/backups/{backupId}/download', {
          params: { path: { projectId, backupId } },
        }),
      );
      // The filesystem store answers a path of the dashboard itself, read with the token.
      const own = link.url.startsWith('/');
      const target = own ? new URL(link.url, url) : new URL(link.url);
      // The token goes with the path of the dashboard only ('//host/...' is another host).
      if (own && target.origin !== url) throw new CliError(`Refused: the download link leaves ${url}`);
      const res = await fetch(target, { headers: own ? { authorization: `Bearer ${token}` } : {} });
      if (!res.ok || !res.body) throw new CliError(`Download failed: HTTP ${res.status}`);
      const file = options.out ?? `backup-${backupId}.tar.gz`;
      const hash = createHash('sha256');
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(Readable.fromWeb(res.body as never), tap, createWriteStream(file, { mode: 0o600 }));
      const digest = hash.digest('hex');
      if (digest !== link.sha256)
        throw new CliError(`${file}: SHA-256 ${digest} does not match ${link.sha256}`);
      out().result({ file, sha256: digest, containsPasswordHashes: link.containsPasswordHashes }, () =>
        console.log(
          `Wrote ${file} (SHA-256 checked)${link.containsPasswordHashes ? '; it holds password hashes' : ''}`,
        ),
      );
    });

  program
    .command('backups')
    .description('Backups of the project')
    .command('list')
    .description('The project backups, newest first (admins)')
    .action(async () => {
      const { api, projectId } = await connect(globals());
      const { backups } = await unwrap(
        api.GET('/api/projects/{projectId}/backups', { params: { path: { projectId } } }),
      );
      out().result(backups, () => {
        for (const b of backups) console.log(`${b.id}  ${b.state}  ${b.createdAt}  ${b.size ?? '-'} bytes`);
        if (backups.length === 0) console.log('No backups');
      });
    });

  program
    .command('restore')
    .description(
      'Restore a backup into a new project (--name), or over this one (--over --confirm <project name>)',
    )
    .argument('<backupId>', 'the backup id')
    .option('--name <name>', 'the new project to restore into')
    .option('--over', 'restore over this project (its data since the backup is gone)')
    .option('--confirm <name>', "this project's exact name, required with --over")
    .option('--wait', 'wait until the restore is done')
    .action(
      async (
        backupId: string,
        options: { name?: string; over?: boolean; confirm?: string; wait?: boolean },
      ) => {
        const { api, projectId } = await connect(globals());
        const body = options.over
          ? { target: 'same' as const, confirm: options.confirm }
          : { name: options.name };
        const result = await unwrap(
          api.POST('/api/projects/{projectId}/backups/{backupId}/restore', {
            params: { path: { projectId, backupId } },
            body: body as never,
          }),
        );
        let job = result.restore;
        if (options.wait)
          job = (await waitFor(
            out(),
            async () =>
              (
                await unwrap(
                  api.GET('/api/projects/{projectId}/restores/{restoreId}', {
                    params: { path: { projectId, restoreId: job.id } },
                  }),
                )
              ).restore,
          )) as typeof job;
        out().result(
          { project: { id: result.project.id, name: result.project.name }, keys: result.keys, restore: job },
          () => {
            console.log(`Restore ${job.id} into ${result.project.name} (${result.project.id}): ${job.state}`);
            if (result.keys)
              console.log(`New keys (shown once): ${result.keys.publishable} ${result.keys.secret}`);
          },
        );
      },
    );
}
