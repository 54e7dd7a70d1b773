// What an integrator does with the published contract: generate TypeScript types from an OpenAPI
// document (openapi-typescript, for openapi-fetch) and type-check their program against them with
// tsc. Any suite can reuse it: make a workspace, generate one types file per document, copy or
// write the program into the workspace, type-check, then import the program and run it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { repoPath } from '../../src/lib/paths.js';

export interface TypedClientWorkspace {
  readonly dir: string;
  /** Absolute path of a file in the workspace. */
  file(name: string): string;
  remove(): void;
}

/**
 * A scratch folder inside the repository (under the git-ignored `.data/`), so that the program
 * resolves `openapi-fetch` and `@types/node` from the project's node_modules as an app would.
 */
export function typedClientWorkspace(prefix = 'typed-client'): TypedClientWorkspace {
  const root = repoPath('.data');
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(path.join(root, `${prefix}-`));
  return {
    dir,
    file: (name) => path.join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Generates the `paths`/`components` types of an OpenAPI document: a URL (fetched, as a generator
 * run by an integrator would), a file path, or the parsed document. Writes them to `outFile`
 * (a `.d.ts` or `.ts` file) and returns the text.
 */
export async function generateClientTypes(
  source: string | URL | Record<string, unknown>,
  outFile: string,
): Promise<string> {
  let input: URL | Record<string, unknown>;
  if (source instanceof URL) input = source;
  else if (typeof source === 'string')
    input = /^https?:\/\//.test(source) ? new URL(source) : new URL(`file://${path.resolve(source)}`);
  else input = source;
  // A fetched document is passed as an object: openapi-typescript's own URL loader would also
  // work, but reading it here gives a clear error when the role does not answer.
  if (input instanceof URL && input.protocol.startsWith('http')) {
    const res = await fetch(input);
    if (!res.ok) throw new Error(`GET ${input.href} -> ${res.status}`);
    input = (await res.json()) as Record<string, unknown>;
  }
  const ast = await openapiTS(input as Parameters<typeof openapiTS>[0]);
  const text = astToString(ast);
  writeFileSync(outFile, text);
  return text;
}

export interface TypeCheckResult {
  ok: boolean;
  /** tsc's diagnostics, one per line. */
  output: string;
}

/**
 * Type-checks `files` with tsc under strict settings (the workspace gets its own tsconfig.json,
 * NodeNext modules like the project). Resolves with the diagnostics; never throws on type errors.
 */
export function typeCheck(workspace: TypedClientWorkspace, files: string[]): Promise<TypeCheckResult> {
  const tsconfig = workspace.file('tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
        },
        files: files.map((f) => path.resolve(workspace.dir, f)),
      },
      null,
      2,
    ),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(repoPath('node_modules', '.bin', 'tsc'), ['-p', tsconfig, '--pretty', 'false'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ok: code === 0, output: output.trim() }));
  });
}
