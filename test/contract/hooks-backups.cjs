// Dredd fixtures of backups, restores and collection export/import (docs/backups.md). Listing and
// "back up now" run in the fixture project (the secret key on the public API, the admin's session
// on the dashboard). The operations on one backup or restore need a backup the worker has
// finished, which a Dredd run has no worker to make, and export/import need rows of a collection
// the other transactions delete: they are skipped here and covered over HTTP, every documented
// status with its body checked against the spec, by test/api/backups.test.ts,
// backup-key.test.ts, backup-fs.test.ts, backup-collection-io.test.ts,
// backup-collection-io-key.test.ts, backup-collection-import-stream.test.ts,
// backup-replace.test.ts, backup-conflicts.test.ts and backup-bucket.test.ts.
module.exports = (hooks) => {
  const { state } = require('./fixtures.cjs');
  const PROJECT = '65f1c2a4b7e8d90012345678';
  const RUNS = [/^\/api\/backups > /, /^\/api\/projects\/\{projectId\}\/backups > /];
  const SKIPPED = [
    /^\/api\/backups\/\{backupId\}/,
    /^\/api\/projects\/\{projectId\}\/backups\/\{backupId\}/,
    /^\/api\/projects\/\{projectId\}\/restores\//,
    /^\/api\/projects\/\{projectId\}\/collections\/\{collectionName\}\/(export|import)\b/,
    /^\/api\/collections\/\{collectionName\}\/(export|import)\b/,
  ];
  hooks.beforeEach((transaction, done) => {
    if (SKIPPED.some((re) => re.test(transaction.name))) {
      transaction.skip = true;
    } else if (RUNS.some((re) => re.test(transaction.name))) {
      if (transaction.name.startsWith('/api/backups')) {
        transaction.request.headers['x-api-key'] = state.secretKey;
      } else {
        transaction.request.headers.Cookie = state.admin.cookie;
        transaction.fullPath = transaction.fullPath.replace(PROJECT, state.projectId);
        transaction.request.uri = transaction.request.uri.replace(PROJECT, state.projectId);
      }
    }
    done();
  });
};
