#!/usr/bin/env node
// The `capi-serverless` command: runs the TypeScript CLI through tsx. An error ends the command with its message only
// (`capi-serverless: <message>`, exit code 1), never a source line and a stack; CAPI_SERVERLESS_DEBUG=1 shows the stack.
import { register } from 'tsx/esm/api';

try {
  register();
  const { main } = await import('./main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`capi-serverless: ${message}\n`);
  if (process.env['CAPI_SERVERLESS_DEBUG'] && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
}
