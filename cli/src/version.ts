// The CLI's own version, and a warning when the installation it talks to was built with another:
// each installation serves the CLI it was built with (/clients/index.json), and a CLI older or
// newer than its server may plan steps the server reads otherwise.
import { readFileSync } from 'node:fs';
import { paint } from './output.js';

export const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

let checked = false;

/** Once per run, in the background: a line on stderr when the installation serves another CLI version. */
export function checkVersion(url: string): void {
  if (checked) return;
  checked = true;
  void (async () => {
    try {
      const res = await fetch(`${url}/clients/index.json`, { signal: AbortSignal.timeout(3000) });
      if (!res.ok) return;
      const served = ((await res.json()) as { cli?: { version?: unknown; tarball?: unknown } }).cli;
      if (typeof served?.version !== 'string' || served.version === version) return;
      const tarball =
        typeof served.tarball === 'string' ? served.tarball : `mongobaas-cli-${served.version}.tgz`;
      process.stderr.write(
        `${paint('yellow', 'warning:')} this CLI is ${version} and ${url} was built with ${served.version}; ` +
          `install that one: npm install -g ${url}/clients/${tarball}\n`,
      );
    } catch {
      // An installation without /clients/ (or unreachable): the command itself says what went wrong.
    }
  })();
}
