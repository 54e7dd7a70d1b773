// What a `$set` of dot paths will make of a document, computed before the write so that the quota
// can be checked against the size the document is about to have. Paths are copied, never shared.
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !(value instanceof Date);

function cloneShallow(value: unknown): Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return [...value];
  return isObject(value) ? { ...value } : {};
}

export function applySet(
  doc: Record<string, unknown>,
  set: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  for (const [path, value] of Object.entries(set)) {
    const segments = path.split('.');
    let parent: Record<string, unknown> | unknown[] = out;
    for (const segment of segments.slice(0, -1)) {
      const holder = parent as Record<string, unknown>;
      const next = cloneShallow(holder[segment]);
      holder[segment] = next;
      parent = next;
    }
    (parent as Record<string, unknown>)[segments[segments.length - 1]!] = value;
  }
  return out;
}
