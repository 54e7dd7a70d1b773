// The CLI's JSON scanner: the position of every key and value by JSON Pointer, and each syntax
// error JSON.parse refuses found at its offset (the definition file's errors are named by them).
import { expect } from 'chai';
import { lineColumn, positions, JsonSyntaxError } from '../../cli/src/json-source.js';

describe('CLI JSON positions', () => {
  const text = '{\n  "a/b": [1, {"x~y": "q\\"\\u00e9"}],\n  "n": -1.5e3, "t": true, "z": null\n}\n';

  it('finds each value and key by pointer, escaped as ajv names them', () => {
    const found = positions(text);
    const at = (pointer: string) => {
      const p = found.get(pointer)!;
      return {
        value: lineColumn(text, p.value),
        key: p.key === undefined ? undefined : lineColumn(text, p.key),
      };
    };
    expect(at('')).to.deep.equal({ value: { line: 1, column: 1 }, key: undefined });
    expect(at('/a~1b')).to.deep.equal({ value: { line: 2, column: 10 }, key: { line: 2, column: 3 } });
    expect(at('/a~1b/1/x~0y').value).to.deep.equal({ line: 2, column: 22 });
    expect(at('/n').value).to.deep.equal({ line: 3, column: 8 });
    expect(at('/z').value).to.deep.equal({ line: 3, column: 32 });
    expect(JSON.parse(text)).to.be.an('object');
  });

  it('refuses what JSON.parse refuses, at the offending character', () => {
    const bad = [
      '{"a": 1,}',
      '[1, 2,]',
      '{"a" 1}',
      "{'a': 1}",
      '{"a": 01}',
      '{"a": "tab\there"}',
      '{"a": "\\x"}',
      '{"a": tru}',
      '{"a": 1} x',
      '{"a": [1, 2}',
      '',
      '{"a": .5}',
    ];
    for (const input of bad) {
      expect(() => JSON.parse(input), input).to.throw();
      expect(() => positions(input), input).to.throw(JsonSyntaxError);
    }
    const err = (() => {
      try {
        positions('{\n  "a": 1,\n}');
      } catch (e) {
        return e as JsonSyntaxError;
      }
    })()!;
    expect(lineColumn('{\n  "a": 1,\n}', err.offset)).to.deep.equal({ line: 3, column: 1 });
    expect(err.message).to.equal('expected a property name in double quotes, found "}"');
  });

  it('accepts what JSON.parse accepts', () => {
    for (const input of ['0', '"x"', ' [ ] ', '{}', '{"a":{"b":[[],{}]}}', '-0.0E+2', '"\\ud83d\\ude00 😀"'])
      expect(() => positions(input), input).to.not.throw();
  });
});
