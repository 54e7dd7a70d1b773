// login (stores a personal access token, 0600), logout, whoami, projects list, link.
import type { Command } from 'commander';
import { password, isCancel } from '@clack/prompts';
import { createApi, unwrap } from '../api.js';
import { output } from '../output.js';
import {
  CliError,
  DEFINITION_FILE,
  EXIT,
  forgetToken,
  normalizeUrl,
  resolveAuth,
  storeToken,
  writeProjectFile,
  type GlobalOptions,
} from '../settings.js';

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

/**
 * The token to log in with: --token (`-` for standard input), MONGOBAAS_TOKEN, a prompt on a
 * terminal, else standard input. --token with the value itself stays for scripts, but it lands
 * in the shell's history, so the docs lead with the others.
 */
async function tokenToStore(given?: string): Promise<string> {
  if (given === '-') return readStdin();
  if (given) return given;
  if (process.env.MONGOBAAS_TOKEN) return process.env.MONGOBAAS_TOKEN;
  if (process.stdin.isTTY) {
    const answer = await password({ message: 'Personal access token (Account page of the dashboard)' });
    if (isCancel(answer)) throw new CliError('Cancelled', EXIT.usage);
    return answer;
  }
  return readStdin();
}

export function accountCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('login')
    .description(
      'Check a personal access token and store it for a dashboard URL (in your config folder, mode 0600)',
    )
    .option(
      '--token <token>',
      'the token, `-` to read it from standard input (else MONGOBAAS_TOKEN, a prompt, or standard input)',
    )
    .action(async (options: { token?: string }) => {
      const { url: given, json } = globals();
      const raw = given ?? process.env.MONGOBAAS_URL;
      if (!raw) throw new CliError('Pass the dashboard URL: mongobaas login --url https://...', EXIT.usage);
      const url = normalizeUrl(raw);
      const token = await tokenToStore(options.token);
      if (!token) throw new CliError('No token given', EXIT.usage);
      const { developer } = await unwrap(createApi(url, token).GET('/api/user/me'));
      const file = await storeToken(url, token, developer.email);
      output(Boolean(json)).result({ url, email: developer.email, credentials: file }, () =>
        console.log(`Logged in to ${url} as ${developer.email} (token stored in ${file})`),
      );
    });

  program
    .command('logout')
    .description('Forget the stored token of the dashboard URL (the token itself stays valid until revoked)')
    .action(async () => {
      const forgotten = await forgetToken(globals().url);
      output(Boolean(globals().json)).result({ loggedOut: forgotten }, () =>
        console.log(forgotten ? 'Logged out' : 'No stored token to forget'),
      );
    });

  program
    .command('whoami')
    .description('The developer the token belongs to')
    .action(async () => {
      const { url, token } = await resolveAuth(globals());
      const { developer } = await unwrap(createApi(url, token).GET('/api/user/me'));
      output(Boolean(globals().json)).result({ url, ...developer }, () =>
        console.log(`${developer.email} on ${url} (plan ${developer.plan})`),
      );
    });

  const projects = program.command('projects').description('Projects of your account');
  projects
    .command('list')
    .description('Projects the token reaches, with your role')
    .action(async () => {
      const { url, token } = await resolveAuth(globals());
      const { projects: list } = await unwrap(createApi(url, token).GET('/api/projects'));
      output(Boolean(globals().json)).result(
        list.map(({ id, name, role }) => ({ id, name, role })),
        () => {
          for (const p of list) console.log(`${p.id}  ${p.name}  (${p.role})`);
          if (list.length === 0) console.log('No projects');
        },
      );
    });

  program
    .command('link')
    .description(`Link this folder to a project: writes mongobaas.json (URL, project id, definition file)`)
    .argument('<projectId>', 'the project id (see `mongobaas projects list`)')
    .action(async (projectId: string) => {
      const { url, token } = await resolveAuth(globals());
      const { project } = await unwrap(
        createApi(url, token).GET('/api/projects/{projectId}', { params: { path: { projectId } } }),
      );
      const file = await writeProjectFile({ url, projectId: project.id, definition: DEFINITION_FILE });
      output(Boolean(globals().json)).result({ file, projectId: project.id, name: project.name }, () =>
        console.log(`Linked to ${project.name} (${project.id}) in ${file}`),
      );
    });
}
