// A plan limit as the Plans page shows and reads it: a count, a size with its unit ("50 MB"),
// `unlimited`, or yes/no for a feature; and the input of a plan's value a body path names.
import { formatBytes } from '../../api';
import { isLimit, UNLIMITED } from '../../data/plans';

export const BYTES = /Bytes$/;
const UNITS: [string, number][] = [
  ['TB', 1024 ** 4],
  ['GB', 1024 ** 3],
  ['MB', 1024 ** 2],
  ['KB', 1024],
];

/** The value in words for the read-only table. */
export function shown(name: string, value: number | boolean) {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (!isLimit(value)) return 'unlimited';
  return BYTES.test(name) ? formatBytes(value) : value.toLocaleString('en');
}

/** The value in an input: exact, so that saving an untouched form changes nothing. */
export function editable(name: string, value: number | boolean): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (!isLimit(value)) return 'unlimited';
  if (BYTES.test(name) && value > 0)
    for (const [unit, size] of UNITS) if (value % size === 0) return `${value / size} ${unit}`;
  return String(value);
}

/** What an input says, for the API: a whole number, "unlimited" or a boolean; else a problem. */
export function parsed(name: string, text: string, feature: boolean): number | boolean | 'unlimited' | Error {
  const value = text.trim().toLowerCase();
  if (feature) return value === 'yes';
  if (value === 'unlimited') return 'unlimited';
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?$/.exec(value.replace(/[,_ ](?=\d)/g, ''));
  const size = match?.[2] && match[2] !== 'b' ? UNITS.find(([u]) => u.toLowerCase() === match[2])![1] : 1;
  const number = match ? Math.round(Number(match[1]) * size) : NaN;
  if (!match || (match[2] && !BYTES.test(name)) || !Number.isSafeInteger(number) || number >= UNLIMITED)
    return new Error(
      BYTES.test(name)
        ? 'must be a size such as 50 MB, a number of bytes, or unlimited'
        : 'must be a whole number from 0, or unlimited',
    );
  return number;
}

/** A plan's backup values, named as the API names them (`backups.kept`, `backups.every`). */
export const BACKUPS = ['kept', 'every'] as const;
export type BackupName = (typeof BACKUPS)[number];

/** A draft's key for a backup value (`backups-kept`), beside the limits' names. */
export const backupKey = (key: string) => `backups-${key}`;

/** The id of the input of a plan's limit, or of its backups' `kept` or `every` (`backups-kept`). */
export const cellId = (plan: string, name: string) => `plan-${plan}-${name}`;

/** The input a body path (`plans.free.backups.kept`, as problemsOf and the API name it) concerns. */
export function cellOf(path: string): string | undefined {
  const [root, plan, group, name] = path.split('.');
  if (root !== 'plans' || !plan || !name) return undefined;
  if (group === 'limits') return cellId(plan, name);
  if (group === 'backups') return cellId(plan, backupKey(name));
  return undefined;
}
