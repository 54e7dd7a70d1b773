// Driver errors of the data layer as clients see them: a duplicate key is a 409 naming the field,
// a time-out or a malformed query a 400, a server-side failure stays a 500 (rethrown as is).
import { expect } from 'chai';
import { MongoServerError } from 'mongodb';
import { ApiError } from '../../src/http/errors.js';
import { translateDriverError } from '../../src/db/document-errors.js';

const serverError = (code: number | undefined, message: string) =>
  new MongoServerError({ code, message, errmsg: message });

function translated(err: unknown, what: 'query' | 'write' | 'pipeline'): unknown {
  try {
    translateDriverError(err, what);
  } catch (thrown) {
    return thrown;
  }
  throw new Error('expected a throw');
}

describe('data layer error translation', () => {
  it('a duplicate key is a 409 naming the field of the u_<field> index', () => {
    const err = translated(
      serverError(
        11000,
        'E11000 duplicate key error collection: p.posts index: u_slug dup key: { slug: "x" }',
      ),
      'write',
    );
    expect(err).to.be.instanceOf(ApiError);
    expect(err).to.include({
      status: 409,
      code: 'DUPLICATE_VALUE',
      message: 'Duplicate value for "slug": it must be unique in this collection',
    });
  });

  it('a time-out is a 400 QUERY_TIMEOUT', () => {
    for (const what of ['query', 'pipeline'] as const) {
      expect(translated(serverError(50, 'operation exceeded time limit'), what)).to.include({
        status: 400,
        code: 'QUERY_TIMEOUT',
      });
    }
  });

  it('malformed queries and pipelines are 400s; server failures are rethrown', () => {
    expect(translated(serverError(51091, 'Regular expression is invalid'), 'query')).to.include({
      status: 400,
    });
    expect(translated(serverError(28, 'Cannot create field'), 'write')).to.include({
      status: 400,
      message: 'Invalid update: the database cannot apply it; check the field paths and value types',
    });
    const pipeline = translated(serverError(40324, 'Unrecognized pipeline stage name'), 'pipeline');
    expect(pipeline).to.include({ status: 400, code: 'INVALID_PIPELINE' });
    // The client reads our words; the driver's message stays on the error for the log only.
    expect((pipeline as ApiError).message).not.to.include('Unrecognized');
    expect((pipeline as ApiError).cause).to.be.instanceOf(MongoServerError);
    for (const code of [13, 189, 11600]) {
      expect(translated(serverError(code, 'server side'), 'pipeline')).to.be.instanceOf(MongoServerError);
      expect(translated(serverError(code, 'server side'), 'query')).to.be.instanceOf(MongoServerError);
    }
    const network = new Error('connection reset');
    expect(translated(network, 'query')).to.equal(network);
  });
});
