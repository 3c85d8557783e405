#!/usr/bin/env node
// Launcher for `npx agency-crm`: the CLI is TypeScript, run through tsx like the server.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
