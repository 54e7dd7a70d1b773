import { expect } from 'chai';
import { OPERATOR_PLAN, parsePlanTable, limitsOf } from '../../src/lib/plan-table.js';
import { PLANS, UNLIMITED } from '../../src/lib/plans.js';

const FILE = `
default: starter
plans:
  starter:
    extends: free
    label: Starter
    collectionsPerProject: 25
  pro: {}
  team:
    extends: pro
    projectsPerDeveloper: unlimited
    webhooksPerProject: unlimited
    backupsKept: 90
`;

describe('plan table', () => {
  it("reads the operator's plans lowest first, with extends, labels, unlimited and backups", () => {
    const problems: string[] = [];
    const table = parsePlanTable(FILE, 'plans.yaml', undefined, problems);
    expect(problems).to.deep.equal([]);
    expect(table.plans.map((p) => [p.name, p.label])).to.deep.equal([
      ['starter', 'Starter'],
      ['pro', 'Pro'],
      ['team', 'Team'],
    ]);
    expect(table.defaultPlan).to.equal('starter');
    expect(table.file).to.equal('plans.yaml');
    expect(table.get('starter').limits).to.deep.equal({ ...PLANS.free, collectionsPerProject: 25 });
    expect(table.get('team').limits.projectsPerDeveloper).to.equal(UNLIMITED);
    expect(table.get('team').limits.storageBytes).to.equal(PLANS.pro.storageBytes);
    expect(table.get('team').backups).to.deep.equal({ kept: 90, every: 'hour' });
    expect(table.get('free').name, 'an undefined name reads as the default').to.equal('starter');
    expect(limitsOf(table, { limits: { webhooksPerProject: 3 } }, 'team').webhooksPerProject).to.equal(3);
  });

  it('lets DEFAULT_PLAN alone put new accounts on Pro; the development profile defaults to the highest', () => {
    const problems: string[] = [];
    expect(parsePlanTable(undefined, '', 'pro', problems).defaultPlan).to.equal('pro');
    expect(parsePlanTable(undefined, '', undefined, problems).defaultPlan, 'as the spec states it').to.equal(
      'free',
    );
    expect(parsePlanTable(undefined, '', undefined, problems, true)).to.include({
      defaultPlan: 'pro',
      profileDefault: true,
    });
    expect(parsePlanTable(undefined, '', 'pro', problems, true).profileDefault).to.equal(false);
    expect(parsePlanTable(undefined, '', 'free', problems, true).defaultPlan, 'DEFAULT_PLAN wins').to.equal(
      'free',
    );
    expect(parsePlanTable(FILE, 'p.yaml', undefined, problems, true).defaultPlan, 'the file wins').to.equal(
      'starter',
    );
    expect(problems).to.deep.equal([]);
  });

  it("gives the operator's own account no plan limits, and keeps the per-call bounds the widest", () => {
    const table = parsePlanTable(FILE, 'plans.yaml', undefined, []);
    const { limits, backups } = table.get(OPERATOR_PLAN);
    expect(limits).to.include({
      projectsPerDeveloper: UNLIMITED,
      collectionsPerProject: UNLIMITED,
      webhooksPerProject: UNLIMITED,
      indexesPerCollection: UNLIMITED,
      functionsPerProject: UNLIMITED,
      storageBytes: UNLIMITED,
      ownAiKey: true,
      ownMailKey: true,
      externalStorage: true,
      customMailTemplates: true,
      functionDeadlineMs: PLANS.pro.functionDeadlineMs,
      functionCronMinSeconds: PLANS.pro.functionCronMinSeconds,
    });
    expect(backups.kept).to.equal(90);
    const problems: string[] = [];
    parsePlanTable('plans:\n  operator: {}\n', 'o.yaml', undefined, problems);
    expect(problems[0]).to.match(/plan "operator": the name is reserved/);
  });

  it('names every problem of a wrong file, and of an unknown DEFAULT_PLAN', () => {
    const problems: string[] = [];
    parsePlanTable(
      'plans:\n  Big: {}\n  gold:\n    extends: silver\n  x:\n    mailPerMonth: lots\n    colour: red\n    ownAiKey: 1\nextra: 1\n',
      'p.yaml',
      undefined,
      problems,
    );
    expect(problems).to.deep.equal([
      'PLANS_FILE p.yaml: unknown key "extra" (plans, default)',
      'PLANS_FILE p.yaml: plan "Big": a name is 1 to 32 lower-case letters, digits or -',
      'PLANS_FILE p.yaml: plan "gold" extends "silver", which is not defined above it',
      'PLANS_FILE p.yaml: plan "x": mailPerMonth must be a whole number or "unlimited"',
      'PLANS_FILE p.yaml: plan "x": unknown limit "colour"',
      'PLANS_FILE p.yaml: plan "x": ownAiKey must be true or false',
    ]);
    const more: string[] = [];
    parsePlanTable(undefined, '', 'gold', more);
    expect(more).to.deep.equal(['DEFAULT_PLAN "gold" is not a plan of this installation (free, pro)']);
    const broken: string[] = [];
    parsePlanTable('plans: [', 'b.yaml', undefined, broken);
    expect(broken[0]).to.match(/^PLANS_FILE b.yaml is not valid JSON or YAML/);
  });
});
