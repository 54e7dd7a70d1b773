// Where the CLI finds what it talks to: the dashboard URL and a personal access token (flags,
// then MONGOBAAS_URL / MONGOBAAS_TOKEN, then the credentials stored by `login`), and the linked
// project (--project, MONGOBAAS_PROJECT, then the project file `mongobaas.json` of the folder).
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** Exit codes a CI can read; docs/cli.md lists them. */
export const EXIT = { ok: 0, failed: 1, usage: 2, changes: 3, auth: 4 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

export const PROJECT_FILE = 'mongobaas.json';
export const DEFINITION_FILE = 'mongobaas.config.json';

export interface ProjectFile {
  url: string;
  projectId: string;
  /** The definition file, relative to the project file. */
  definition: string;
}

interface Credentials {
  current?: string;
  hosts: Record<string, { token: string; email?: string }>;
}

export interface GlobalOptions {
  url?: string;
  project?: string;
  json?: boolean;
}

const configDir = () =>
  path.join(process.env.XDG_CONFIG_HOME || path.join(homedir(), '.config'), 'mongobaas');
export const credentialsPath = () => path.join(configDir(), 'credentials.json');

/** Loopback hosts, the only ones a token may reach over plain http. */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

const normalizeUrl = (url: string) => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`Not a URL: ${url}`, EXIT.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CliError(`The dashboard URL must be http or https: ${url}`, EXIT.usage);
  // A token sent over plain http can be read by anyone on the path: only this machine is exempt.
  if (parsed.protocol === 'http:' && !LOOPBACK.test(parsed.hostname))
    throw new CliError(
      `Refused: ${parsed.origin} is plain http; a token is sent only over https (plain http only to localhost)`,
      EXIT.usage,
    );
  return parsed.origin;
};

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

async function readCredentials(): Promise<Credentials> {
  return (await readJson<Credentials>(credentialsPath())) ?? { hosts: {} };
}

/** Stores a token for a URL in the user's config folder, readable by the user only (0600). */
export async function storeToken(url: string, token: string, email: string): Promise<string> {
  const credentials = await readCredentials();
  const host = normalizeUrl(url);
  credentials.hosts[host] = { token, email };
  credentials.current = host;
  await mkdir(configDir(), { recursive: true, mode: 0o700 });
  const file = credentialsPath();
  await writeFile(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

/** Forgets the token of a URL (or of the current one); true when one was stored. */
export async function forgetToken(url?: string): Promise<boolean> {
  const credentials = await readCredentials();
  // Any URL a token was ever stored for can be forgotten, plain http ones included.
  let host = credentials.current;
  if (url) {
    try {
      host = new URL(url).origin;
    } catch {
      throw new CliError(`Not a URL: ${url}`, EXIT.usage);
    }
  }
  if (!host || !credentials.hosts[host]) return false;
  delete credentials.hosts[host];
  if (credentials.current === host) delete credentials.current;
  if (Object.keys(credentials.hosts).length === 0) await rm(credentialsPath(), { force: true });
  else await writeFile(credentialsPath(), JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return true;
}

export const readProjectFile = (dir = process.cwd()) => readJson<ProjectFile>(path.join(dir, PROJECT_FILE));

export async function writeProjectFile(file: ProjectFile, dir = process.cwd()): Promise<string> {
  const target = path.join(dir, PROJECT_FILE);
  await writeFile(target, JSON.stringify(file, null, 2) + '\n');
  return target;
}

/**
 * The URL and token to call. The URL: flag, environment, project file, last login; the token:
 * MONGOBAAS_TOKEN, else the one `login` stored for that URL. The environment's token (a CI
 * secret) goes only to a URL that the command line or the environment gave too, never to one read
 * from the checked-out project file, which a pull request can change.
 */
export async function resolveAuth(options: GlobalOptions): Promise<{ url: string; token: string }> {
  const credentials = await readCredentials();
  const linked = await readProjectFile();
  const chosen = options.url ?? process.env.MONGOBAAS_URL;
  const raw = chosen ?? linked?.url ?? credentials.current;
  if (!raw)
    throw new CliError('No dashboard URL: pass --url, set MONGOBAAS_URL or run `mongobaas login`', EXIT.auth);
  const url = normalizeUrl(raw);
  const fromEnv = process.env.MONGOBAAS_TOKEN;
  if (fromEnv) {
    if (chosen === undefined)
      throw new CliError(
        `Refused: MONGOBAAS_TOKEN is sent only to a URL given by MONGOBAAS_URL or --url, ` +
          `not to ${url} read from ${linked?.url ? PROJECT_FILE : 'the last login'}. Set MONGOBAAS_URL to your dashboard's URL.`,
        EXIT.auth,
      );
    return { url, token: fromEnv };
  }
  const token = credentials.hosts[url]?.token;
  if (!token)
    throw new CliError(`Not logged in to ${url}: run \`mongobaas login\` or set MONGOBAAS_TOKEN`, EXIT.auth);
  return { url, token };
}

/** The project to act on: --project, MONGOBAAS_PROJECT, or the linked one. */
export async function resolveProject(options: GlobalOptions): Promise<string> {
  const id = options.project ?? process.env.MONGOBAAS_PROJECT ?? (await readProjectFile())?.projectId;
  if (!id)
    throw new CliError(
      'No project: run `mongobaas link <projectId>`, pass --project or set MONGOBAAS_PROJECT',
      EXIT.usage,
    );
  return id;
}

export { normalizeUrl };
