// The verifying pass of a restore, run by the request that queues it and again by the worker over
// its local copy: the archive's checksums, its project, and every platform record checked as its
// repository will be given it (./restore-records.ts). Nothing is written.
import type { Readable } from 'node:stream';
import { parseRecordLine } from '../../db/backups.js';
import { forbidden } from '../../http/errors.js';
import { readArchive } from './archive-reader.js';
import type { Manifest, RecordKind } from './archive.js';
import {
  checkCollectionLines,
  checkFileLine,
  checkMailTemplateLine,
  checkProjectLine,
  checkWebhookLine,
  refusedRecord,
  type Checked,
  type RecordRules,
} from './restore-records.js';
import { checkFunctionLine, FUNCTION_CAPS } from './restore-functions.js';

export type CheckedRecord = { [K in keyof Checked]: { kind: K } & Checked[K] }[keyof Checked];

/** The kind of a `platform/<kind>.jsonl` part (the reader let no other name through). */
export const recordKindOf = (partName: string) =>
  partName.replace(/^platform\//, '').replace(/\.jsonl$/, '') as RecordKind;

const parse = (kind: string, row: number, line: string) => {
  const doc = (() => {
    try {
      return parseRecordLine(line);
    } catch {
      throw refusedRecord(kind, row, 'the line is not Extended JSON');
    }
  })();
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw refusedRecord(kind, row, 'not an object');
  return doc as Record<string, unknown>;
};

/** Each line of a platform part, checked; unconfirmed file records are left out. */
export async function* checkedRecords(
  kind: RecordKind,
  lines: AsyncIterable<string>,
  rules: RecordRules,
): AsyncGenerator<CheckedRecord> {
  if (kind === 'collections') {
    // Checked together: a Ref names another definition of the part (as many as the plan allows).
    const docs: Record<string, unknown>[] = [];
    for await (const line of lines) docs.push(parse(kind, docs.length + 1, line));
    for (const def of checkCollectionLines(docs, rules)) yield { kind, ...def };
    return;
  }
  let row = 0;
  // Function names and hook slots met so far (one each per project).
  const seen = new Set<string>();
  for await (const line of lines) {
    row += 1;
    const doc = parse(kind, row, line);
    if (kind === 'functions')
      yield { kind, ...checkFunctionLine(doc, row, rules.functions ?? FUNCTION_CAPS, seen) };
    else if (kind === 'project') {
      if (row > 1) throw refusedRecord(kind, row, 'the project part has one line');
      yield { kind, ...checkProjectLine(doc, row) };
    } else if (kind === 'webhooks') yield { kind, ...checkWebhookLine(doc, row) };
    else if (kind === 'mail_templates') yield { kind, ...checkMailTemplateLine(doc, row) };
    else {
      const file = checkFileLine(doc, row, rules);
      if (file) yield { kind, ...file };
    }
  }
}

export interface VerifyOptions {
  /** The checksum the backup recorded: the whole file must have it. */
  sha256: string | undefined;
  rules: RecordRules;
  /** Told of the manifest once its project is checked (quotas). */
  manifest?(manifest: Manifest): void;
  /** A restore keeping the archive's ids: how many of them belong to another project (must be 0). */
  takenElsewhere?(kind: RecordKind, ids: string[]): Promise<number>;
}

const BATCH = 500;

/** Reads the whole archive through every check; the manifest when it passes. */
export function verifyForRestore(source: Readable, opts: VerifyOptions): Promise<Manifest> {
  return readArchive(
    source,
    {
      manifest(m) {
        if (m.project.id !== opts.rules.sourceProjectId)
          throw forbidden('The archive belongs to another project', 'FOREIGN_ARCHIVE');
        opts.manifest?.(m);
      },
      async part(part, lines) {
        if (!part.name.startsWith('platform/')) {
          for await (const _line of lines);
          return;
        }
        const kind = recordKindOf(part.name);
        let ids: string[] = [];
        const flush = async () => {
          if (ids.length && opts.takenElsewhere && (await opts.takenElsewhere(kind, ids)) > 0) {
            throw refusedRecord(kind, undefined, 'a record has the id of a record of another project');
          }
          ids = [];
        };
        for await (const record of checkedRecords(kind, lines, opts.rules)) {
          if (record.kind === 'project') continue;
          ids.push(record.id);
          if (ids.length >= BATCH) await flush();
        }
        await flush();
      },
      async file(_part, bytes) {
        for await (const _chunk of bytes);
      },
    },
    opts.sha256,
  );
}
