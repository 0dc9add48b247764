#!/usr/bin/env node
// The `vconsole` command. Runs the TypeScript sources through tsx, so the CLI works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
