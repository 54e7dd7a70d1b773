// Whether a sweep's failure on one project's collection says its database is not answering (its
// own deployment past the deadline, unreachable, or the task's own deadline): the sweeps then pass
// over the project's other collections until their next run, instead of waiting out a deadline
// on each while every other project waits behind it.
import { databaseUnavailable } from '../db/errors.js';

export const unreachable = (err: unknown): boolean =>
  databaseUnavailable(err) !== undefined || (err instanceof Error && err.name === 'TimeoutError');
