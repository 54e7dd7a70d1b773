// Contract tests: Dredd sends a request for every operation of both specs through Prism, a
// validating proxy that checks each request and response against the spec (Dredd alone ignores
// allOf, formats and bounds). Hooks (hooks.cjs) create what a transaction needs. A third run does
// the same over a generated project document (project-document.ts, hooks-project.cjs), so the
// documents the service generates cannot drift from what it does. Prints
// `contract: N passed, N failed` and exits non-zero on any failure.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { repoPath } from '../../src/lib/paths.js';
import { startTestApps } from '../helpers/app.js';
import { projectDocument } from './project-document.js';
import { startFixtureAiProvider } from '../helpers/ai-provider.js';

const bin = (name: string) => repoPath('node_modules', '.bin', name);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`prism did not listen on ${port} within ${timeoutMs} ms`);
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += stripVTControlCharacters(chunk.toString());
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Prism as a validating proxy of `spec` in front of `target`. */
const startPrism = (spec: string, target: string, port: number) =>
  spawn(bin('prism'), ['proxy', spec, target, '--port', String(port), '--errors', '-v', 'warn'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });

// The internal store is the filesystem (so the signed-URL upload route has a transaction); the
// stack's S3 server plays a project's own bucket, which needs ALLOW_PRIVATE_HOSTS on loopback.
const storageDir = mkdtempSync(path.join(tmpdir(), 'baas-contract-'));
// The AI tools run against an OpenAI-compatible server on loopback.
const aiProvider = await startFixtureAiProvider();
const apps = await startTestApps('contract', {
  ...aiProvider.env,
  S3_BUCKET: '',
  STORAGE_DIR: storageDir,
  ALLOW_PRIVATE_HOSTS: 'true',
  DEVELOPER_SIGNUPS_PER_HOUR: '1000',
});
const children: ChildProcess[] = [];
let passed = 0;
let failed = 0;
try {
  const proxies: Record<string, string> = {};
  for (const role of ['public', 'dashboard'] as const) {
    const port = await freePort();
    const prism = startPrism(repoPath('generated', `${role}.openapi.json`), apps[role].url, port);
    children.push(prism);
    await waitForPort(port, prism);
    proxies[role] = `http://127.0.0.1:${port}`;
  }
  /** One Dredd run through a proxy; adds its counts to the totals. */
  const dredd = async (
    label: string,
    spec: string,
    proxy: string,
    hookfile: string,
    env: NodeJS.ProcessEnv,
  ) => {
    const { code, output } = await run(
      bin('dredd'),
      [spec, proxy, '--hookfiles', hookfile, '--language', 'nodejs', '--loglevel', 'warning'],
      { ...process.env, ...env },
    );
    const summary = /complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped/.exec(output);
    if (!summary) {
      failed += 1;
      console.error(`Dredd (${label}) printed no summary; exit code ${code}`);
      return;
    }
    const [, pass, fail, errors] = summary.map(Number) as number[];
    passed += pass!;
    failed += fail! + errors!;
    if (code !== 0 && fail! + errors! === 0) failed += 1;
  };
  for (const role of ['public', 'dashboard'] as const) {
    console.log(`\n== contract: ${role} API (${proxies[role]} -> ${apps[role].url}) ==`);
    await dredd(
      role,
      repoPath('generated', `${role}.openapi.json`),
      proxies[role]!,
      repoPath('test', 'contract', 'hooks.cjs'),
      {
        CONTRACT_ROLE: role,
        CONTRACT_PUBLIC_URL: proxies.public,
        CONTRACT_DASHBOARD_URL: proxies.dashboard,
      },
    );
  }

  const project = await projectDocument(apps.dashboard.url, apps.public.url, storageDir);
  const port = await freePort();
  children.push(startPrism(project.file, apps.public.url, port));
  await waitForPort(port, children.at(-1)!);
  const proxy = `http://127.0.0.1:${port}`;
  console.log(`\n== contract: a generated project document (${proxy} -> ${apps.public.url}) ==`);
  await dredd('project document', project.file, proxy, repoPath('test', 'contract', 'hooks-project.cjs'), {
    CONTRACT_PROJECT_API_URL: apps.public.url,
    CONTRACT_PROJECT_SECRET_KEY: project.secretKey,
  });
} finally {
  for (const child of children) child.kill('SIGTERM');
  await apps.close();
  await aiProvider.provider.close();
  rmSync(storageDir, { recursive: true, force: true });
}
console.log(`\ncontract: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
