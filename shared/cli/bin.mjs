#!/usr/bin/env node
// The `capi-serverless` command: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
