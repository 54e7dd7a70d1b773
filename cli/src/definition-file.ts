// The definition file on disk and the code files beside it. The file is checked against the
// shipped schema before anything is sent (definition-check.ts). A checked-out repository is not
// trusted with the rest of the disk: a code file is read or written only when its real path, links
// followed, stays inside the definition's folder, so a link to the credentials file is refused
// instead of being pushed as a function's code.
import { lstat, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkDefinition } from './definition-check.js';
import { canonical, serialize, type ProjectDefinition } from './definition.js';
import { functionsFromFile, type FunctionFileSpec } from './functions.js';
import { CliError, EXIT } from './settings.js';

const inside = (base: string, target: string) => target.startsWith(base + path.sep);

/** The real path of `name` under `base` (links followed), refused when it leaves `base`. */
export async function realPathInside(base: string, name: string, what: string): Promise<string> {
  const realBase = await realpath(base);
  let target = path.resolve(realBase, name);
  if (!inside(realBase, target))
    throw new CliError(`${what} must be inside ${realBase}: ${name}`, EXIT.usage);
  // Resolve the deepest part that exists: a link anywhere on the way counts.
  let rest = '';
  for (;;) {
    try {
      target = path.join(await realpath(target), rest);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if ((await lstat(target).catch(() => undefined))?.isSymbolicLink())
        throw new CliError(`${what} is a link to nowhere: ${name}`, EXIT.usage);
      rest = path.join(path.basename(target), rest);
      target = path.dirname(target);
    }
  }
  if (!inside(realBase, target))
    throw new CliError(
      `${what} must be inside ${realBase}, links followed: ${name} leads to ${target}`,
      EXIT.usage,
    );
  return target;
}

export async function readDefinition(file: string): Promise<ProjectDefinition> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CliError(
      missing ? `No ${file}: run \`mongobaas pull\` first` : `Cannot read ${file}: ${(err as Error).message}`,
      EXIT.usage,
    );
  }
  const parsed = checkDefinition(file, text);
  const { functions, ...rest } = parsed as Omit<ProjectDefinition, 'functions'> & {
    functions?: Record<string, FunctionFileSpec>;
  };
  // Code files are named relative to the definition file, and must stay beside it.
  const base = path.dirname(path.resolve(file));
  const read = async (name: string) => {
    const target = await realPathInside(base, name, `${file}: a function's file`);
    try {
      return await readFile(target, 'utf8');
    } catch {
      throw new CliError(`${file} names ${name}, which cannot be read`, EXIT.usage);
    }
  };
  return canonical({ ...rest, functions: await functionsFromFile(functions, read) } as ProjectDefinition);
}

/** Writes the definition and its functions' code files beside it, never through a link out of its folder. */
export async function writeDefinition(file: string, def: ProjectDefinition): Promise<void> {
  const { text, files } = serialize(def);
  const base = path.dirname(path.resolve(file));
  await mkdir(base, { recursive: true });
  for (const [name, code] of files) {
    const target = await realPathInside(base, name, 'a function file');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, code);
  }
  await writeFile(file, text);
}
