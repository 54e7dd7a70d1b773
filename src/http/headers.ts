// A request header as one string: Node gives repeated headers as arrays; the first one counts.
export type HeaderBag = Record<string, string | string[] | undefined>;

export const firstHeader = (headers: HeaderBag, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};
