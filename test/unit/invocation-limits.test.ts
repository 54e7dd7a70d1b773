// The limits one hosted invocation runs with, read from the plan: ctx.db calls and the captured
// log (functionDbCallsPerInvocation, functionLogBytesPerInvocation) as the plan or the operator
// says, the log held between 1 KiB and 1 MiB whatever a plan file says.
import { expect } from 'chai';
import { PLANS, UNLIMITED } from '../../src/lib/plans.js';
import { invocationLimits, LOG_BYTES_MAX, LOG_BYTES_MIN } from '../../src/services/functions/invoke.js';

describe('invocation limits from the plan', () => {
  it('keeps Free as it was (50 ctx.db calls, 16 KiB of log) and gives Pro 200 and 64 KiB', () => {
    expect(invocationLimits(PLANS.free)).to.include({
      maxDbCalls: 50,
      maxLogBytes: 16 * 1024,
      maxFetches: 5,
    });
    expect(invocationLimits(PLANS.pro)).to.include({
      maxDbCalls: 200,
      maxLogBytes: 64 * 1024,
      maxFetches: 20,
    });
  });

  it('takes an override as it is, the log within its bounds', () => {
    const limits = (overrides: Partial<typeof PLANS.free>) =>
      invocationLimits({ ...PLANS.free, ...overrides });
    expect(limits({ functionDbCallsPerInvocation: 3, functionLogBytesPerInvocation: 2048 })).to.include({
      maxDbCalls: 3,
      maxLogBytes: 2048,
    });
    expect(limits({ functionDbCallsPerInvocation: 0 }).maxDbCalls).to.equal(0);
    expect(limits({ functionLogBytesPerInvocation: UNLIMITED }).maxLogBytes).to.equal(LOG_BYTES_MAX);
    expect(limits({ functionLogBytesPerInvocation: 0 }).maxLogBytes).to.equal(LOG_BYTES_MIN);
    expect([LOG_BYTES_MIN, LOG_BYTES_MAX]).to.deep.equal([1024, 1024 * 1024]);
  });
});
