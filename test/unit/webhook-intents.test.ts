// When the worker finds an unconfirmed outbox intent, the stored document tells whether the change
// it announced was written: a pure decision, checked here for each event.
import { expect } from 'chai';
import { changeHappened } from '../../src/services/webhooks/recovery.js';
import type { ClaimedIntent } from '../../src/db/webhook-intents.js';

const at = new Date('2026-11-26T05:00:00.000Z');
const before = '2026-11-26T04:59:59.999Z';
const intent = (event: string): ClaimedIntent => ({
  projectId: 'p',
  eventKey: 'k',
  event,
  collection: 'posts',
  documentId: 'd',
  eventAt: at,
  failures: 0,
});

describe('webhook intents: did the change happen?', () => {
  it('a create happened when the document exists (in the trash too)', () => {
    expect(changeHappened(intent('document.created'), { _id: 'd' })).to.equal(true);
    expect(changeHappened(intent('document.created'), { _id: 'd', isDeleted: true })).to.equal(true);
    expect(changeHappened(intent('document.created'), undefined)).to.equal(false);
  });
  it('an update happened when updatedAt is at or after the event', () => {
    expect(changeHappened(intent('document.updated'), { updatedAt: at.toISOString() })).to.equal(true);
    expect(changeHappened(intent('document.updated'), { updatedAt: new Date(at.getTime() + 5) })).to.equal(
      true,
    );
    expect(changeHappened(intent('document.updated'), { updatedAt: before })).to.equal(false);
  });
  it('a delete happened when the document is in the trash since the event', () => {
    const deleted = intent('document.deleted');
    expect(changeHappened(deleted, { isDeleted: true, deletedAt: at.toISOString() })).to.equal(true);
    expect(changeHappened(deleted, { isDeleted: true, deletedAt: before })).to.equal(false);
    expect(changeHappened(deleted, { isDeleted: false, deletedAt: null })).to.equal(false);
  });
  it('a restore happened when the document is active', () => {
    expect(changeHappened(intent('document.restored'), { isDeleted: false })).to.equal(true);
    expect(changeHappened(intent('document.restored'), { isDeleted: true })).to.equal(false);
  });
});
