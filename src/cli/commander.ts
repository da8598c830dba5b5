/**
 * commander, loaded through require: its ESM wrapper makes Node parse the
 * CommonJS source a second time to find its named exports (cjs-module-lexer),
 * which a warm CLI command should not pay for (CLI latency).
 */
import { createRequire } from 'node:module';
import type * as Commander from 'commander';

const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const Command = commander.Command;
export type Command = Commander.Command;
export const Option = commander.Option;
export type Option = Commander.Option;
export const CommanderError = commander.CommanderError;
export type CommanderError = Commander.CommanderError;
export const InvalidArgumentError = commander.InvalidArgumentError;
