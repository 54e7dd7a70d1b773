// Words of the messages people read: a count with its noun in agreement ("1 collection", "2 collections").

/** `n` and its noun, singular for exactly one; `plural` where adding an `s` is not the plural. */
export const counted = (n: number, singular: string, plural = `${singular}s`): string =>
  `${n} ${n === 1 ? singular : plural}`;
