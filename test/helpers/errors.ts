// Checks on errors thrown by pure functions: the unit tests' way to get at the ApiError that a
// call throws, so that they can assert its status, code and message.
import { expect } from 'chai';
import { ApiError } from '../../src/http/errors.js';

/** Calls `fn`, expects it to throw an ApiError and returns that error. */
export function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}
