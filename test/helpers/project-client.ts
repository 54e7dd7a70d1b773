// Generates a typed client from an OpenAPI document the way an integrator would (openapi-typescript
// types for openapi-fetch), type-checks programs against it with tsc, runs them, and lints the
// document with Redocly's recommended rules. Work happens in a folder under node_modules/.cache,
// so the programs resolve openapi-fetch from the project's own node_modules.
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { repoPath } from '../../src/lib/paths.js';

const run = promisify(execFile);
const bin = (name: string) => repoPath('node_modules', '.bin', name);

export interface ClientWorkspace {
  dir: string;
  /** Writes `<name>.d.ts` (paths, components, operations) for the document. */
  generate(document: object, name: string): Promise<string>;
  write(file: string, content: string): string;
  /** tsc --strict over the files; resolves with its output, rejects on type errors. */
  typeCheck(files: string[]): Promise<string>;
  /** Runs a TypeScript program (tsx) with the given environment; resolves with its stdout. */
  execute(file: string, env: Record<string, string>): Promise<string>;
  /** Redocly lint (recommended rules): the totals and the problems as text. */
  lint(file: string): Promise<{ errors: number; warnings: number; problems: string[] }>;
  remove(): void;
}

export function clientWorkspace(): ClientWorkspace {
  const cache = repoPath('node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'project-client-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const write = (file: string, content: string) => {
    writeFileSync(path.join(dir, file), content);
    return path.join(dir, file);
  };
  return {
    dir,
    write,
    async generate(document, name) {
      const ast = await openapiTS(document as never);
      return write(`${name}.d.ts`, astToString(ast));
    },
    async typeCheck(files) {
      // Only @types/node: the project's other @types would triple the time for nothing.
      const args = ['--noEmit', '--strict', '--skipLibCheck', '--types', 'node', '--target', 'es2022'];
      try {
        const { stdout } = await run(bin('tsc'), [...args, '--module', 'nodenext', ...files], {
          cwd: dir,
        });
        return stdout;
      } catch (err) {
        throw new Error(`tsc failed:\n${(err as { stdout?: string }).stdout ?? String(err)}`, { cause: err });
      }
    },
    async execute(file, env) {
      const { stdout } = await run(bin('tsx'), [file], { cwd: dir, env: { ...process.env, ...env } });
      return stdout;
    },
    async lint(file) {
      const { stdout } = await run(bin('redocly'), ['lint', file, '--format=json'], { cwd: dir }).catch(
        (err: { stdout?: string }) => ({ stdout: err.stdout ?? '{}' }),
      );
      const report = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string }[];
      };
      return {
        ...report.totals,
        problems: report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`),
      };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
