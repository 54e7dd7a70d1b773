// Where each value of a JSON text starts, so that a wrong definition is named by file, line and
// column. A strict scanner of the JSON grammar that records the offset of every key and value by
// JSON Pointer (ajv's instancePath) and stops at the first syntax error with its offset, which
// JSON.parse gives on no Node version in the same words (Node 20 gives none). The values
// themselves still come from JSON.parse.

export interface Position {
  /** Offset of the value. */
  value: number;
  /** Offset of its key, when it is a property of an object. */
  key?: number;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

// JSON forbids raw control characters in strings, so the pattern must name them.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

export const pointerSegment = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The offsets of every key and value by JSON Pointer ('' for the root); throws JsonSyntaxError. */
export function positions(text: string): Map<string, Position> {
  const found = new Map<string, Position>();
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const unexpected = (expected: string): never => {
    const at = text[i];
    throw new JsonSyntaxError(
      at === undefined
        ? `unexpected end of file, expected ${expected}`
        : `expected ${expected}, found ${JSON.stringify(at)}`,
      i,
    );
  };
  const match = (pattern: RegExp) => {
    pattern.lastIndex = i;
    const m = pattern.exec(text);
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const value = (pointer: string, key?: number) => {
    space();
    found.set(pointer, { value: i, ...(key !== undefined ? { key } : {}) });
    const c = text[i];
    if (c === '{') return object(pointer);
    if (c === '[') return array(pointer);
    if (c === '"')
      return void (match(STRING) ?? unexpected('a string without raw control characters or bad escapes'));
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9'))
      return void (match(NUMBER) ?? unexpected('a number'));
    if (match(LITERAL) === undefined) unexpected('a value');
  };
  const object = (pointer: string) => {
    i++;
    space();
    if (text[i] === '}') return void i++;
    for (;;) {
      space();
      const keyAt = i;
      const raw = text[i] === '"' ? match(STRING) : undefined;
      if (raw === undefined) return unexpected('a property name in double quotes');
      space();
      if (text[i] !== ':') return unexpected('":"');
      i++;
      value(`${pointer}/${pointerSegment(JSON.parse(raw) as string)}`, keyAt);
      space();
      if (text[i] === ',') i++;
      else if (text[i] === '}') return void i++;
      else return unexpected('"," or "}"');
    }
  };
  const array = (pointer: string) => {
    i++;
    space();
    if (text[i] === ']') return void i++;
    for (let index = 0; ; index++) {
      value(`${pointer}/${index}`);
      space();
      if (text[i] === ',') i++;
      else if (text[i] === ']') return void i++;
      else return unexpected('"," or "]"');
    }
  };
  value('');
  space();
  if (i < text.length) unexpected('the end of the file');
  return found;
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    start = at + 1;
  }
  return { line, column: offset - start + 1 };
}
