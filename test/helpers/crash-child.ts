// A public role in a child process that kills itself (SIGKILL) at a chosen moment of a write
// (public-crash-child.ts, CRASH_AT), for the tests of what a crash leaves behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { repoPath } from '../../src/lib/paths.js';

export function startCrashingPublic(
  platformDb: string,
  crashAt: string,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', repoPath('test/helpers/public-crash-child.ts')], {
    env: { ...process.env, PLATFORM_DB: platformDb, CRASH_AT: crashAt },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /ready (\S+)/.exec(chunk.toString());
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code, signal) => reject(new Error(`public child exited with ${code ?? signal}`)));
  });
}

/** Posts to the child, which dies before answering; resolves with how it died. */
export async function postAndDie(
  url: string,
  apiKey: string,
  child: ChildProcess,
  body: unknown,
  path = '/api/data/posts',
) {
  const exited = new Promise<string | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  const answer = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  }).then(
    (res) => res.status,
    () => 'no answer',
  );
  return { answer, signal: await exited };
}
