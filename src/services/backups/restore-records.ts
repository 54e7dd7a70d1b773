// The platform records of an archive, checked one kind at a time before a restore writes any:
// only the kinds a backup holds, each record's fields of the right shape (collection definitions
// through the same checks as the API's), ids that are object ids, file paths under the project
// the archive was made of. What a check returns is all a repository is given to write.
import { badRequest } from '../../http/errors.js';
import type { CollectionInput } from '../../db/collections.js';
import type { MailTemplateFields } from '../../db/mail-templates.js';
import type { WebhookFields } from '../../db/webhooks.js';
import type { FileRecord } from '../storage/types.js';
import type { ProjectSettings } from '../types.js';
import { checkCollectionInput, COLLECTION_NAME } from '../schema/field-definitions.js';
import { checkCollectionIndexes } from '../schema/index-definitions.js';
import { WEBHOOK_EVENTS } from '../webhooks/index.js';
import type { CheckedFunction, FunctionRules } from './restore-functions.js';

export interface RecordRules {
  /** The project the archive was made of: its file paths are `<id>/...`. */
  sourceProjectId: string;
  /** Declared indexes one collection may have (the target's plan). */
  indexesPerCollection: number;
  /** The target plan's code size, secrets and cron interval (else the caps of FUNCTION_CAPS). */
  functions?: FunctionRules;
}

type Doc = Record<string, unknown>;
export type CheckedFile = Omit<FileRecord, 'id' | 'projectId' | 'state'>;

/** When a record was made and last changed, as the archive has them. */
export interface Dates {
  createdAt: Date;
  updatedAt: Date;
}

export interface Checked {
  project: { settings: ProjectSettings };
  collections: { id: string; input: CollectionInput; dates: Dates };
  webhooks: { id: string; fields: WebhookFields; secretEnc: string; dates: Dates };
  mail_templates: { id: string; name: string; fields: MailTemplateFields; dates: Dates };
  files: { id: string; record: CheckedFile };
  functions: CheckedFunction;
}

const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const FILE_NAME = /^[^/\\]{1,1024}$/;
const MAX_TEXT = 1024 * 1024;

/** A refusal naming the part, the line and the problem. */
export const refusedRecord = (kind: string, row: number | undefined, problem: string) =>
  badRequest(`The archive is refused: platform/${kind}.jsonl${row ? ` line ${row}` : ''}: ${problem}`);

export function recordFields(kind: string, row: number, doc: Doc) {
  const no = (problem: string): never => {
    throw refusedRecord(kind, row, problem);
  };
  const text = (key: string, max = 2048) => {
    const v = doc[key];
    return typeof v === 'string' && v.length <= max
      ? v
      : no(`${key} must be a string of at most ${max} characters`);
  };
  const maybeText = (key: string, max = 2048) => (doc[key] == null ? null : text(key, max));
  const bool = (key: string) =>
    typeof doc[key] === 'boolean' ? doc[key] : no(`${key} must be true or false`);
  const count = (key: string) => {
    const v = doc[key];
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : no(`${key} must be a count`);
  };
  const date = (key: string) => (doc[key] instanceof Date ? doc[key] : no(`${key} must be a date`));
  const maybeDate = (key: string) => (doc[key] == null ? null : date(key));
  const list = (key: string, ok: (v: unknown) => boolean, max = 200) => {
    const v = doc[key];
    return Array.isArray(v) && v.length <= max && v.every(ok)
      ? (v as string[])
      : no(`${key} is not a valid list`);
  };
  const dates = () => ({ createdAt: date('createdAt'), updatedAt: date('updatedAt') });
  const id = () => {
    const v = doc._id;
    const hex = v && typeof v === 'object' ? String(v) : '';
    return /^[0-9a-f]{24}$/.test(hex) ? hex : no('_id must be an object id');
  };
  return { no, text, maybeText, bool, count, date, maybeDate, list, id, dates };
}

/** The project's settings (one line): the settings only; name, keys, members and plan are not in it. */
export function checkProjectLine(doc: Doc, row: number): Checked['project'] {
  const settings = doc.settings;
  if (!settings || typeof settings !== 'object')
    throw refusedRecord('project', row, 'settings must be an object');
  const f = recordFields('project', row, settings as Doc);
  return {
    settings: {
      allowedOrigins: f.list('allowedOrigins', (o) => typeof o === 'string' && o.length <= 2048),
      endUserAuth: f.bool('endUserAuth'),
      siteUrl: f.maybeText('siteUrl'),
    },
  };
}

/** The collection definitions, checked together (a Ref names another definition of the archive). */
export function checkCollectionLines(docs: Doc[], rules: RecordRules): Checked['collections'][] {
  const names = new Set(docs.map((d) => d.name).filter((n): n is string => typeof n === 'string'));
  return docs.map((doc, i) => {
    const f = recordFields('collections', i + 1, doc);
    try {
      const checked = checkCollectionInput(doc, { existingCollections: names, operation: 'create' });
      // A definition stored before declared indexes has none; the plan's limit holds for the rest.
      const raw = Array.isArray(doc.indexes) ? (doc.indexes as Record<string, unknown>[]) : undefined;
      const indexes = checkCollectionIndexes(
        checked,
        doc.indexes ?? undefined,
        rules.indexesPerCollection,
      )?.map((index, n) => ({
        ...index,
        createdAt: raw?.[n]?.createdAt instanceof Date ? raw[n].createdAt : index.createdAt,
      }));
      return { id: f.id(), input: indexes ? { ...checked, indexes } : checked, dates: f.dates() };
    } catch (err) {
      if (err instanceof Error && 'status' in err && (err as { status: number }).status === 403) throw err;
      throw refusedRecord('collections', i + 1, err instanceof Error ? err.message : String(err));
    }
  });
}

export function checkWebhookLine(doc: Doc, row: number): Checked['webhooks'] {
  const f = recordFields('webhooks', row, doc);
  const url = f.text('url');
  if (!/^https?:\/\//.test(url) || !URL.canParse(url)) f.no('url must be an http(s) URL');
  return {
    id: f.id(),
    fields: {
      url,
      description: f.maybeText('description'),
      events: f.list(
        'events',
        (e) => (WEBHOOK_EVENTS as readonly unknown[]).includes(e),
        WEBHOOK_EVENTS.length,
      ),
      collections: f.list('collections', (c) => typeof c === 'string' && COLLECTION_NAME.test(c)),
      enabled: f.bool('enabled'),
    },
    secretEnc: f.text('secretEnc'),
    dates: f.dates(),
  };
}

export function checkMailTemplateLine(doc: Doc, row: number): Checked['mail_templates'] {
  const f = recordFields('mail_templates', row, doc);
  const name = f.text('name', 64);
  if (!TEMPLATE_NAME.test(name)) f.no('name is not a template name');
  return {
    id: f.id(),
    name,
    fields: {
      subject: f.text('subject', MAX_TEXT),
      text: f.maybeText('text', MAX_TEXT),
      html: f.maybeText('html', MAX_TEXT),
    },
    dates: f.dates(),
  };
}

/**
 * A file record: confirmed (others are not restored: undefined), its path one name under the
 * archive's project (`<sourceProjectId>/<name>`), never a path of another project.
 */
export function checkFileLine(doc: Doc, row: number, rules: RecordRules): Checked['files'] | undefined {
  const f = recordFields('files', row, doc);
  if (doc.state !== 'confirmed') return undefined;
  const path = f.text('path');
  const [owner, name, ...more] = path.split('/');
  if (
    owner !== rules.sourceProjectId ||
    !name ||
    more.length ||
    !FILE_NAME.test(name) ||
    name === '..' ||
    name === '.'
  ) {
    f.no(`path ${JSON.stringify(path)} is not a file of the project the archive was made of`);
  }
  const provider =
    doc.provider === 'internal' || doc.provider === 'external' ? doc.provider : f.no('unknown provider');
  const backend = doc.backend === 'fs' || doc.backend === 's3' ? doc.backend : f.no('unknown backend');
  return {
    id: f.id(),
    record: {
      path,
      provider,
      backend,
      location: f.maybeText('location'),
      uploadKey: path,
      filename: f.text('filename', 1024),
      contentType: f.text('contentType', 255),
      declaredSize: f.count('declaredSize'),
      size: f.count('size'),
      chargedBytes: f.count('chargedBytes'),
      ownerUserId: f.maybeText('ownerUserId', 24),
      url: f.maybeText('url'),
      createdAt: f.date('createdAt'),
      expiresAt: f.date('expiresAt'),
      claimedAt: null,
      confirmedAt: f.maybeDate('confirmedAt'),
    },
  };
}
