// Builds the CLI an installed package runs (`npm pack` runs it at prepack): shared/cli/main.ts bundled by esbuild
// into dist/cli/main.mjs with every run-time dependency inside, so `npx capi-serverless` needs no dev dependency.
// `cost` prices the stack's synthesized templates: they are synthesized here, once, and embedded in place of
// synthesize-stack.ts (aws-cdk-lib and infra/ stay out of the package). shared/cli/bin.mjs loads this bundle when the
// TypeScript sources are absent.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { stackVariants, synthesizeStack, type StackVariant } from '#shared/pricing/synthesize-stack.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Where the bundle goes; two levels below the package root, as shared/cli/main.ts is (it reads ../../package.json). */
export const cliBundle = join(repoRoot, 'dist', 'cli', 'main.mjs');

/** synthesize-stack.ts replaced by the templates it returns, synthesized now. */
function embedSynthesizedStacks(): Plugin {
  const templates = Object.fromEntries(
    (Object.keys(stackVariants) as StackVariant[]).map((variant) => [variant, synthesizeStack(variant)]),
  );
  const contents = [
    `const templates = ${JSON.stringify(templates)};`,
    `export const stackVariants = ${JSON.stringify(stackVariants)};`,
    'export function synthesizeStack(variant) { return structuredClone(templates[variant]); }',
  ].join('\n');
  return {
    name: 'embed-synthesized-stacks',
    setup(b) {
      b.onLoad({ filter: /[\\/]shared[\\/]pricing[\\/]synthesize-stack\.ts$/ }, () => ({ contents, loader: 'js' }));
    },
  };
}

mkdirSync(dirname(cliBundle), { recursive: true });
const started = performance.now();
await build({
  entryPoints: [join(repoRoot, 'shared', 'cli', 'main.ts')],
  outfile: cliBundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // NOTE: not minified and no source map: a stack (CAPI_SERVERLESS_DEBUG=1) names readable functions as it is.
  minify: false,
  // NOTE: CommonJS dependencies bundled into ESM call require(); give them one.
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  plugins: [embedSynthesizedStacks()],
  logLevel: 'warning',
});
process.stdout.write(`built ${cliBundle} in ${Math.round(performance.now() - started)} ms\n`);
