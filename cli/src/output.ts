// What the CLI prints: plain lines for people (colours only on a terminal, NO_COLOR honoured),
// one JSON document on stdout with --json for scripts; errors and progress go to stderr.
import { styleText } from 'node:util';

const colours = () => process.stdout.isTTY === true && !process.env.NO_COLOR;
type Style = 'red' | 'green' | 'yellow' | 'bold' | 'dim';

export const paint = (style: Style, text: string) => (colours() ? styleText(style, text) : text);

export interface Output {
  readonly json: boolean;
  /** A line for people; nothing in --json mode. */
  line(text?: string): void;
  /** The result: printed as JSON with --json, else by `human`. */
  result(value: unknown, human: () => void): void;
  /** Progress of long work, on stderr (never mixed into --json output). */
  progress(text: string): void;
}

export function output(json: boolean): Output {
  return {
    json,
    line(text = '') {
      if (!json) process.stdout.write(text + '\n');
    },
    result(value, human) {
      if (json) process.stdout.write(JSON.stringify(value, null, 2) + '\n');
      else human();
    },
    progress(text) {
      if (process.stderr.isTTY || process.env.MONGOBAAS_PROGRESS) process.stderr.write(`${text}\n`);
    },
  };
}
