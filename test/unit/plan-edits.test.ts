// The plans edited on the Plans page as pure logic: a stored record put back onto the plans read
// at start (values of the wrong type or for unknown limits ignored, a record without backups
// keeping the plans' own), the edit's problems in words, and the operator's plan never lowered by
// an edit.
import { expect } from 'chai';
import { applyEdit, limitWords, plansFromRecord, recordOf } from '../../src/lib/plan-edits.js';
import { parsePlanTable, OPERATOR_PLAN } from '../../src/lib/plan-table.js';
import { BACKUP_PLANS, PLANS, UNLIMITED } from '../../src/lib/plans.js';

const table = (defaultPlan?: string, highest = false) =>
  parsePlanTable(undefined, '', defaultPlan, [], highest);

describe('plan edits', () => {
  it('names a limit in words', () => {
    expect(limitWords('projectsPerDeveloper')).to.equal('projects per developer');
    expect(limitWords('databaseBytes')).to.equal('database (bytes)');
    expect(limitWords('functionDeadlineMs')).to.equal('function deadline (milliseconds)');
  });

  it('puts a record back onto the plans of start, ignoring what this version does not know', () => {
    const plans = table();
    const record = {
      plans: {
        free: {
          projectsPerDeveloper: 1,
          ownAiKey: true,
          retired: 5,
          webhooksPerProject: -3,
          mailPerMonth: 'x',
        },
        gold: { projectsPerDeveloper: 9 },
      },
      defaultPlan: 'pro',
      updatedAt: new Date(),
    } as never;
    const { plans: list, defaultPlan, profileDefault } = plansFromRecord(plans, record);
    expect(list.map((p) => p.name)).to.deep.equal(['free', 'pro']);
    expect(list[0]!.limits).to.include({
      projectsPerDeveloper: 1,
      ownAiKey: true,
      webhooksPerProject: 2,
      mailPerMonth: 100,
    });
    expect(list[0]!.limits).not.to.have.property('retired');
    expect(list[1]!.limits).to.deep.equal(PLANS.pro);
    expect({ defaultPlan, profileDefault }).to.deep.equal({ defaultPlan: 'pro', profileDefault: false });
    expect(plansFromRecord(table('free'), record).defaultPlan, 'DEFAULT_PLAN keeps its plan').to.equal(
      'free',
    );
    expect(plansFromRecord(table(undefined, true), undefined), 'no record: as at start').to.include({
      defaultPlan: 'pro',
      profileDefault: true,
    });
  });

  it('puts back the backups of a record, keeping the plans’ own where it has none or a bad value', () => {
    const plans = table();
    const old = { plans: { free: { projectsPerDeveloper: 1 } }, defaultPlan: null, updatedAt: new Date() };
    const before = plansFromRecord(plans, old).plans;
    expect(before[0]!.limits.projectsPerDeveloper).to.equal(1);
    expect(before.map((p) => p.backups)).to.deep.equal([BACKUP_PLANS.free, BACKUP_PLANS.pro]);
    const record = {
      ...old,
      backups: { free: { kept: 1, every: 'hour' }, pro: { kept: 0, every: 'week' }, gold: { kept: 9 } },
    } as never;
    const [free, pro] = plansFromRecord(plans, record).plans;
    expect(free!.backups).to.deep.equal({ kept: 1, every: 'hour' });
    expect(pro!.backups).to.deep.equal(BACKUP_PLANS.pro);
  });

  it('edits the backups named of a plan, the other value kept, and names a bad one', () => {
    const plans = table();
    const edited = applyEdit(plans, { plans: { pro: { backups: { kept: 2 } } } });
    expect(edited.problems).to.deep.equal([]);
    expect(edited.plans[1]!.backups).to.deep.equal({ kept: 2, every: 'hour' });
    expect(edited.plans[1]!.limits).to.deep.equal(PLANS.pro);
    const { problems } = applyEdit(plans, {
      plans: { free: { backups: { kept: 0, every: 'week', often: 1 } } },
    });
    expect(problems).to.deep.equal([
      {
        path: 'body.plans.free.backups.kept',
        message: 'Free: backups.kept must be a whole number from 1, not 0',
      },
      {
        path: 'body.plans.free.backups.every',
        message: 'Free: backups.every must be "day" or "hour", not "week"',
      },
      {
        path: 'body.plans.free.backups.often',
        message: 'Free: backups have no "often", only kept and every',
      },
    ]);
  });

  it('lists every problem of an edit with its field', () => {
    const { problems } = applyEdit(table(), {
      defaultPlan: 'gold',
      plans: { free: { limits: { projectsPerDeveloper: -1, ownAiKey: 1, nope: 2 } }, team: { limits: {} } },
    });
    expect(problems).to.deep.equal([
      {
        path: 'body.plans.free.limits.projectsPerDeveloper',
        message: 'Free: projects per developer must be a whole number from 0, or "unlimited", not -1',
      },
      { path: 'body.plans.free.limits.ownAiKey', message: 'Free: own ai key must be true or false, not 1' },
      {
        path: 'body.plans.free.limits.nope',
        message: 'Free has no limit "nope": the limits are those GET /api/plans lists',
      },
      {
        path: 'body.plans.team',
        message: 'There is no plan "team" on this installation: its plans are free, pro',
      },
      {
        path: 'body.defaultPlan',
        message:
          'The plan of new accounts, "gold", is not a plan of this installation: its plans are free, pro',
      },
    ]);
  });

  it('replaces the table in place, and never lowers the operator below the plans of start', () => {
    const plans = table();
    const before = plans.operator.limits;
    const { plans: edited, defaultPlan } = applyEdit(plans, {
      plans: {
        free: { limits: { requestsPerMinute: 1, projectsPerDeveloper: 'unlimited' } },
        pro: { limits: { requestsPerMinute: 1, functionDeadlineMs: 10 } },
      },
    });
    const next = plansFromRecord(plans, recordOf(edited, defaultPlan));
    plans.replace(next.plans, next.defaultPlan, next.profileDefault);
    expect(plans.get('free').limits).to.include({ requestsPerMinute: 1, projectsPerDeveloper: UNLIMITED });
    expect(plans.get(OPERATOR_PLAN).limits).to.deep.equal(before);
    expect(plans.operator.limits.requestsPerMinute).to.equal(PLANS.pro.requestsPerMinute);
  });

  it('gives the operator the most backups any plan keeps, edited ones included, hourly', () => {
    const plans = table();
    const raised = applyEdit(plans, {
      plans: { free: { backups: { kept: 45 } }, pro: { backups: { kept: 1, every: 'day' } } },
    });
    const next = plansFromRecord(plans, recordOf(raised.plans, raised.defaultPlan));
    plans.replace(next.plans, next.defaultPlan, next.profileDefault);
    expect(plans.get('free').backups).to.deep.equal({ kept: 45, every: 'day' });
    expect(plans.get('pro').backups).to.deep.equal({ kept: 1, every: 'day' });
    // The widest of the plans saved and of those read at start (Pro's hourly 30).
    expect(plans.get(OPERATOR_PLAN).backups).to.deep.equal({ kept: 45, every: 'hour' });
  });
});
