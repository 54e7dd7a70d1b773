// File paths: `<project_id>/<uuid>_<sanitized filename>`. The filename is reduced to a safe
// character set (no separators, no dot segments, no control characters), bounded in length, with
// its extension kept. Paths given back by clients are parsed strictly, never normalised.
import { randomUUID } from 'node:crypto';

export const MAX_NAME_LENGTH = 100;
const MAX_EXTENSION_LENGTH = 16;

/** A path as issued: the project id, a UUID, and a sanitized name. */
const FILE_PATH =
  /^([0-9a-f]{24})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}_[A-Za-z0-9][A-Za-z0-9._-]*)$/;

/**
 * The safe form of a client's file name: the last segment after any `/` or `\`, accents dropped,
 * every other character outside `A-Z a-z 0-9 . _ -` replaced by `_`, no leading dots, dashes or
 * underscores (no hidden files, no `..`), at most 100 characters with the extension kept.
 */
export function sanitizeFilename(filename: string): string {
  const last = filename.split(/[\\/]/).pop() ?? '';
  const ascii = last.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const safe = ascii
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._-]+/, '')
    .replace(/[._-]+$/, '');
  const dot = safe.lastIndexOf('.');
  const extension = dot > 0 && safe.length - dot <= MAX_EXTENSION_LENGTH + 1 ? safe.slice(dot) : '';
  let stem = (extension ? safe.slice(0, dot) : safe).replace(/[._-]+$/, '');
  if (!stem) stem = 'file';
  stem = stem.slice(0, MAX_NAME_LENGTH - extension.length).replace(/[._-]+$/, '') || 'file';
  return stem + extension;
}

export function newFilePath(projectId: string, filename: string): string {
  return `${projectId}/${randomUUID()}_${sanitizeFilename(filename)}`;
}

/**
 * A fresh staging key for an upload to an S3 store: where its presigned URL writes, outside every
 * file path (so never served), under the project's id (so a deleted project's sweep finds it).
 */
export function newStagingKey(projectId: string): string {
  return `.staging/${projectId}/${randomUUID()}`;
}

/**
 * The parts of a path as issued by `newFilePath`, or undefined for anything else (traversal,
 * encoded separators, absolute paths, other shapes): such a path cannot name a stored file.
 */
export function parseFilePath(path: string): { projectId: string; name: string } | undefined {
  const match = FILE_PATH.exec(path);
  if (!match || path.includes('..') || match[2]!.length > MAX_NAME_LENGTH + 37) return undefined;
  return { projectId: match[1]!, name: match[2]! };
}
