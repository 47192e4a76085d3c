#!/usr/bin/env node
// The `capi-serverless` command. In a clone it runs the TypeScript CLI through tsx (a dev dependency); in an installed
// package, where the sources are not shipped, the bundle `npm pack` built (dist/cli/main.mjs, every run-time
// dependency inside; shared/cli/bundle/build-cli-bundle.ts). An error ends the command with its message only
// (`capi-serverless: <message>`, exit code 1), never a source line and a stack; CAPI_SERVERLESS_DEBUG=1 shows the stack.
import { existsSync } from 'node:fs';

try {
  let main;
  if (existsSync(new URL('./main.ts', import.meta.url))) {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('./main.ts'));
  } else {
    ({ main } = await import('../../dist/cli/main.mjs'));
  }
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`capi-serverless: ${message}\n`);
  if (process.env['CAPI_SERVERLESS_DEBUG'] && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
}
