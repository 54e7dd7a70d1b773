// The docs stay true: every relative link of the README, docs/ and bench/ pages leads to a file
// (and a heading, when it names one), every setting src/config.ts reads is in the table of
// docs/configuration.md, and every setting of that table is read by src/config.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { repoPath } from '../../src/lib/paths.js';

const pages = (): string[] => {
  const inFolder = (folder: string) =>
    readdirSync(repoPath(folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md'))
      .map((name) => repoPath(folder, name));
  return [repoPath('README.md'), ...inFolder('docs'), ...inFolder('bench')];
};

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
};

/** Links outside code: `[text](target)`, without URLs of a scheme and mail addresses. */
const relativeLinks = (text: string): string[] => {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
};

/** The names of the settings in the first column of docs/configuration.md's tables. */
const documentedSettings = (): Set<string> => {
  const names = new Set<string>();
  for (const line of readFileSync(repoPath('docs', 'configuration.md'), 'utf8').split('\n')) {
    const cell = /^\|([^|]+)\|/.exec(line)?.[1];
    if (!cell) continue;
    let previous = '';
    for (const [, name] of cell.matchAll(/`([A-Z_][A-Z0-9_]*)`/g)) {
      // `OAUTH_GITHUB_AUTHORIZE_URL`, `_TOKEN_URL`: a leading `_` replaces as many trailing words.
      if (name!.startsWith('_') && previous) {
        const words = name!.slice(1).split('_').length;
        names.add(`${previous.split('_').slice(0, -words).join('_')}${name}`);
      } else {
        names.add(name!);
        previous = name!;
      }
    }
  }
  return names;
};

/**
 * The settings loadConfig reads, as a union of two runs: with the environment as it is (defaults
 * apply), and with every documented setting set to a placeholder (reads behind a setting's
 * presence happen too).
 */
function settingsRead(documented: Set<string>): Set<string> {
  const read = new Set<string>();
  const recording = (values: Record<string, string | undefined>) =>
    new Proxy(values, {
      get(target, key) {
        if (typeof key === 'string') read.add(key);
        return target[key as string];
      },
    });
  const placeholders: Record<string, string | undefined> = { ...process.env };
  for (const name of documented) placeholders[name] ??= 'x';
  for (const values of [{ ...process.env }, placeholders]) {
    try {
      loadConfig(recording(values));
    } catch {
      // Placeholder values are refused; what matters is which names were read.
    }
  }
  return new Set([...read].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name)));
}

describe('docs', () => {
  it('every relative link leads to a file, and to a heading of it when it names one', () => {
    const broken: string[] = [];
    for (const file of pages()) {
      for (const target of relativeLinks(readFileSync(file, 'utf8'))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const to = path ? join(dirname(file), decodeURIComponent(path)) : file;
        const where = `${relative(repoPath(), file)} -> ${target}`;
        if (!existsSync(to)) broken.push(`${where}: no such file`);
        else if (anchor && to.endsWith('.md') && !anchorsOf(to).has(anchor))
          broken.push(`${where}: no heading with that anchor`);
      }
    }
    expect(broken, broken.join('\n')).to.deep.equal([]);
  });

  it('docs/configuration.md lists exactly the settings src/config.ts reads', () => {
    const documented = documentedSettings();
    const read = settingsRead(documented);
    const undocumented = [...read].filter((name) => !documented.has(name)).sort();
    const unread = [...documented].filter((name) => !read.has(name)).sort();
    expect(undocumented, 'read by src/config.ts but not in docs/configuration.md').to.deep.equal([]);
    expect(unread, 'in docs/configuration.md but not read by src/config.ts').to.deep.equal([]);
  });

  it('the anchor rule is GitHub’s', () => {
    expect(slug('Documents (`/api/data`, public API)')).to.equal('documents-apidata-public-api');
    expect(slug("Your project's API document")).to.equal('your-projects-api-document');
  });
});
