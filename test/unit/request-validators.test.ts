// The dashboard's form validators: compiled at build time from the generated OpenAPI document
// (web/build/request-validators.ts) into code the page imports, and their errors in words
// (web/src/forms/words.ts). The compiled module is written under dist/ and imported for real.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { requestValidatorsCode } from '../../web/build/request-validators.js';
import { wordsFor, type AjvError } from '../../web/src/forms/words.js';
import { repoPath } from '../../src/lib/paths.js';

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

describe('dashboard form validators', function () {
  this.timeout(30_000);
  let validators: Record<string, Validate>;

  before(async () => {
    const dir = repoPath('dist', 'unit-validators');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'request-validators.mjs');
    await writeFile(file, requestValidatorsCode());
    validators = (await import(pathToFileURL(file).href)) as Record<string, Validate>;
  });

  const words = (operationId: string, body: unknown) => {
    const validate = validators[operationId]!;
    expect(validate(body)).to.equal(false);
    return validate.errors!.map((e) => [e.instancePath, wordsFor(e)]);
  };

  it('holds a validator for every dashboard operation with a JSON body', () => {
    for (const op of ['createProject', 'createCollection', 'createWebhook', 'setMailSmtp', 'signUpDeveloper'])
      expect(validators[op], op).to.be.a('function');
    expect(validators.createProject!({ name: 'Shop' })).to.equal(true);
  });

  it('says every problem at once, in the schema’s words or the rule’s', () => {
    expect(words('createProject', { name: '   ' })).to.deep.equal([
      ['/name', 'Enter a name; spaces alone are not a name.'],
    ]);
    expect(words('createCollection', { name: '9 lives', fields: [] })).to.deep.include([
      '/name',
      'Start with a letter; letters, digits, - and _ only (at most 64).',
    ]);
    expect(words('signUpDeveloper', { email: 'x', password: 'short' })).to.deep.equal([
      ['/email', 'Enter an email address, like ada@example.com.'],
      ['/password', 'At least 8 characters.'],
    ]);
    expect(words('createWebhook', { url: '', events: [] })).to.deep.equal([
      ['/url', 'Required.'],
      ['/events', 'Choose at least one.'],
    ]);
  });

  it('never shows a pattern or a validator path', () => {
    const all = [
      ...words('setMailSmtp', { host: 'https://x', port: 0, username: '', password: '', from: '' }),
      ...words('createMailTemplate', { name: 'Bad Name', subject: '' }),
    ].map(([, message]) => message);
    for (const message of all) expect(message).not.to.match(/\^|\$|must match|NOT have|\/[a-z]/);
  });
});
