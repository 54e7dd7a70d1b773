#!/usr/bin/env node
// The executable: runs the program and turns what went wrong into a message and an exit code.
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { CliError, EXIT } from './settings.js';
import { paint } from './output.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    process.stderr.write(`${paint('red', 'error:')} ${(err as Error).message}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : EXIT.failed;
  }
}
