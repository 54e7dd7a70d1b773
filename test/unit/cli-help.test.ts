// The CLI's --help and docs/cli.md list the same commands with the same descriptions.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { allCommands, buildProgram } from '../../cli/src/program.js';
import { repoPath } from '../../src/lib/paths.js';

const fullName = (command: Command): string =>
  command.parent?.parent ? `${fullName(command.parent)} ${command.name()}` : command.name();

describe('CLI help and docs', () => {
  const program = buildProgram();
  const leaves = allCommands(program).filter((c) => c.commands.length === 0);
  const docs = readFileSync(repoPath('docs/cli.md'), 'utf8');
  const table = docs.slice(
    docs.indexOf('## Commands'),
    docs.indexOf('\n## ', docs.indexOf('## Commands') + 1),
  );
  const documented = new Map(
    [...table.matchAll(/^\|\s*`mongobaas ([^`]+)`\s*\|\s*(.+?)\s*\|$/gm)].map((m) => [m[1]!, m[2]!]),
  );

  it('documents every command with the description its --help shows, and no other', () => {
    expect([...documented.keys()].sort()).to.deep.equal(leaves.map(fullName).sort());
    for (const command of leaves)
      expect(documented.get(fullName(command)), fullName(command)).to.equal(command.description());
  });

  it('gives every command a --help with its usage and options', () => {
    for (const command of leaves) {
      const help = command.helpInformation();
      expect(help, fullName(command)).to.include(`Usage: mongobaas ${fullName(command)}`);
      expect(help).to.include('-h, --help');
    }
    expect(program.helpInformation()).to.include('--json');
  });
});
