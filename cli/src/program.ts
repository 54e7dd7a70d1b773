// mongobaas: the command-line tool of the service, its commands and options. Global options (--url, --project, --json)
// come before or after the command; exit codes: 0 done, 1 refused or failed, 2 wrong usage,
// 3 changes found (diff --exit-code, gen types --check), 4 not logged in or token refused.
import { Command } from 'commander';
import { accountCommands } from './commands/account.js';
import { definitionCommands } from './commands/definition.js';
import { typesCommands } from './commands/types.js';
import { backupCommands } from './commands/backups.js';
import { logsCommands } from './commands/logs.js';
import { functionCommands } from './commands/functions.js';
import type { GlobalOptions } from './settings.js';
import { version } from './version.js';

export function buildProgram(): Command {
  const program = new Command('mongobaas')
    .description(
      'Keep a mongobaas project in git: log in with an access token, pull, diff, push, generate types',
    )
    .version(version)
    .option('--url <url>', 'the dashboard URL (else MONGOBAAS_URL, the linked project, the last login)')
    .option('--project <id>', 'the project (else MONGOBAAS_PROJECT or the linked one)')
    .option('--json', 'print results as JSON for scripts')
    .enablePositionalOptions(false)
    .showHelpAfterError()
    .exitOverride();
  const globals = () => program.opts<GlobalOptions>();
  accountCommands(program, globals);
  definitionCommands(program, globals);
  typesCommands(program, globals);
  backupCommands(program, globals);
  logsCommands(program, globals);
  functionCommands(program, globals);
  for (const command of allCommands(program)) command.exitOverride().showHelpAfterError();
  return program;
}

export function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}
