// The plans edited on the Plans page as pure logic: a stored record put back onto the plans read
// at start (values of the wrong type or for unknown limits ignored), the edit's problems in words,
// and the operator's plan never lowered by an edit.
import { expect } from 'chai';
import { applyEdit, limitWords, plansFromRecord, recordOf } from '../../src/lib/plan-edits.js';
import { parsePlanTable, OPERATOR_PLAN } from '../../src/lib/plan-table.js';
import { PLANS, UNLIMITED } from '../../src/lib/plans.js';

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
});
