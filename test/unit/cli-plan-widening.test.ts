// The CLI's plan names every change that widens access (test/api/cli-guard.test.ts drives the
// common ones through a real push); here each kind alone, and the changes that narrow access or
// are the ordinary case, which it must not name.
import { expect } from 'chai';
import { canonical, type ProjectDefinition } from '../../cli/src/definition.js';
import type { FunctionSpec } from '../../cli/src/functions.js';
import { plan } from '../../cli/src/plan.js';

const CODE = 'export default async () => ({});\n';

function project(change: (def: ProjectDefinition) => void = () => {}): ProjectDefinition {
  const def = canonical({
    settings: { allowedOrigins: ['https://app.example'], endUserAuth: false, siteUrl: 'https://app.example' },
    collections: {
      posts: {
        mode: 'schema',
        fields: [
          { name: 'title', type: 'String' },
          { name: 'ownerId', type: 'String' },
        ],
        rls: { enabled: true, mode: 'private', ownerField: 'ownerId' },
        indexes: [],
      },
      users: {
        mode: 'schema',
        fields: [
          { name: 'email', type: 'String' },
          { name: 'role', type: 'String', protected: true },
          { name: 'phone', type: 'String', private: true },
        ],
        rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
        indexes: [],
      },
    },
    webhooks: [],
    mailTemplates: {},
    functions: {
      report: {
        trigger: { type: 'callable', access: 'secret' },
        runtime: { type: 'javascript', code: CODE },
        failurePolicy: 'closed',
        enabled: true,
        env: [],
      },
      check: {
        trigger: { type: 'beforeCreate', collection: 'posts' },
        runtime: { type: 'http', url: 'https://hooks.example/check' },
        failurePolicy: 'closed',
        enabled: true,
        env: [],
      },
    },
  } as ProjectDefinition);
  change(def);
  return canonical(def);
}

const widening = (desired: ProjectDefinition) =>
  plan(project(), desired).flatMap((step) => (step.widening ?? []).map((w) => w.id));
const destructive = (desired: ProjectDefinition) =>
  plan(project(), desired).flatMap((step) => step.destructive.map((d) => d.id));
const fn = (def: ProjectDefinition, name: string) => def.functions[name] as FunctionSpec;

describe('CLI plan: changes that widen access', () => {
  const cases: [string, (def: ProjectDefinition) => void, string[]][] = [
    [
      'an origin added',
      (d) => d.settings.allowedOrigins.push('https://evil.example'),
      ['origin:https://evil.example'],
    ],
    ['every origin allowed', (d) => (d.settings.allowedOrigins = []), ['origins:any']],
    ['end-user sign-up on', (d) => (d.settings.endUserAuth = true), ['end-user-auth']],
    ['another site URL', (d) => (d.settings.siteUrl = 'https://evil.example'), ['site-url']],
    ['RLS off', (d) => (d.collections.posts!.rls.enabled = false), ['rls-off:posts']],
    [
      'RLS private to public-read',
      (d) => (d.collections.posts!.rls.mode = 'public-read'),
      ['public-read:posts'],
    ],
    [
      'a users field no longer protected',
      (d) => delete (d.collections.users!.fields[1] as { protected?: boolean }).protected,
      ['unprotect:users.role'],
    ],
    [
      'a users field no longer private',
      (d) => delete (d.collections.users!.fields[2] as { private?: boolean }).private,
      ['unprivate:users.phone'],
    ],
    [
      'a new webhook',
      (d) =>
        d.webhooks.push({
          url: 'https://evil.example/in',
          events: ['document.created'],
          collections: [],
          description: null,
          enabled: true,
        }),
      ['webhook:https://evil.example/in'],
    ],
    ['a callable made public', (d) => (fn(d, 'report').trigger.access = 'public'), ['access:report']],
    ['a callable opened to end users', (d) => (fn(d, 'report').trigger.access = 'user'), ['access:report']],
    [
      'a function made privileged',
      (d) => (fn(d, 'report').runtime = { type: 'javascript', code: CODE, privileged: true }),
      ['privileged:report'],
    ],
    ['a hook made fail-open', (d) => (fn(d, 'check').failurePolicy = 'open'), ['fail-open:check']],
    [
      "an HTTP hook's new URL",
      (d) => (fn(d, 'check').runtime = { type: 'http', url: 'https://evil.example/hook' }),
      ['function-url:check'],
    ],
    [
      'a new public and privileged callable',
      (d) =>
        (d.functions.open = {
          trigger: { type: 'callable', access: 'public' },
          runtime: { type: 'javascript', code: CODE, privileged: true },
          failurePolicy: 'closed',
          enabled: true,
          env: [],
        }),
      ['access:open', 'privileged:open'],
    ],
    [
      'a new HTTP function',
      (d) =>
        (d.functions.relay = {
          trigger: { type: 'afterCreate', collection: 'posts' },
          runtime: { type: 'http', url: 'https://evil.example/relay' },
          failurePolicy: 'closed',
          enabled: true,
          env: [],
        }),
      ['function-url:relay'],
    ],
  ];
  for (const [name, change, ids] of cases)
    it(`names ${name}: ${ids.join(', ')}`, () => {
      expect(widening(project(change))).to.deep.equal(ids);
    });

  it('names none for changes that narrow access or are the ordinary case', () => {
    const narrower = project((d) => {
      d.settings.allowedOrigins = ['https://app.example'];
      d.settings.endUserAuth = false;
      d.collections.users!.rls = { enabled: true, mode: 'private', ownerField: 'email' };
      (d.collections.users!.fields[0] as { private?: boolean }).private = true;
      fn(d, 'check').failurePolicy = 'closed';
      d.functions.mine = {
        trigger: { type: 'callable', access: 'user' },
        runtime: { type: 'javascript', code: CODE },
        failurePolicy: 'closed',
        enabled: true,
        env: [],
      };
      d.collections.tags = {
        mode: 'flexible',
        fields: [],
        rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
        indexes: [],
      };
    });
    expect(widening(narrower)).to.deep.equal([]);
    // Tightening RLS stays destructive: it can lock clients out.
    expect(destructive(narrower)).to.deep.equal(['rls:users']);
  });

  it('keeps an RLS change that both loosens and moves the owner field destructive', () => {
    const moved = project(
      (d) => (d.collections.posts!.rls = { enabled: true, mode: 'public-read', ownerField: 'title' }),
    );
    expect(destructive(moved)).to.deep.equal(['rls:posts']);
    expect(widening(moved)).to.deep.equal([]);
  });
});
