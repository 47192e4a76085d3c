// The one way every function (the three controllers and the webhooks) is built and run: esbuild-bundled ESM for the
// nodejs22.x runtime on arm64, minified with source maps that Node applies to stack traces (--enable-source-maps), with
// JSON logs and Lambda's per-invocation lines off.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Lambda runtime of every function; the bundle target below follows it. */
export const functionRuntime = lambda.Runtime.NODEJS_22_X;

/** esbuild options shared by every function (`npx cdk synth` runs esbuild locally; no Docker). */
export const functionBundling = {
  forceDockerBundling: false,
  format: nodejs.OutputFormat.ESM,
  // NOTE: the runtime's Node major; esbuild then keeps the syntax Node 22 runs natively.
  target: 'node22',
  minify: true,
  sourceMap: true,
  keepNames: true,
  mainFields: ['module', 'main'],
  // NOTE: CommonJS dependencies bundled into ESM call require(); give them one.
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  externalModules: [],
} as const satisfies nodejs.BundlingOptions;

/** Environment every function gets: stack traces point at the TypeScript sources, not the minified bundle. */
export const functionRuntimeEnvironment = { NODE_OPTIONS: '--enable-source-maps' } as const;

/**
 * How every function logs: JSON, with Lambda's own (system) log lines only at WARN. NOTE: at the default INFO, Lambda
 * writes START, END and REPORT lines (about 350 B) for every invocation, most of a busy fleet's log ingestion (the
 * webhooks answer over a million admission calls a month at 10,000 Clusters); at WARN only a failed invocation's lines
 * are written. Duration, errors and throttles stay in Lambda's own CloudWatch metrics (free), and every pass still
 * writes its JSON line. Application lines are kept from INFO up, as Powertools' default level.
 */
export const functionLogging = {
  loggingFormat: lambda.LoggingFormat.JSON,
  systemLogLevelV2: lambda.SystemLogLevel.WARN,
} as const satisfies Partial<nodejs.NodejsFunctionProps>;

/**
 * The props every function shares: its entry in functions/, the runtime, arm64 and the bundling above.
 *
 * @example
 * new nodejs.NodejsFunction(this, 'TopologyFunction', { ...computeBundledFunctionProps('topology'), memorySize: 512 });
 */
export function computeBundledFunctionProps(entry: string): nodejs.NodejsFunctionProps {
  return {
    entry: join(repoRoot, 'functions', `${entry}.ts`),
    handler: 'handler',
    projectRoot: repoRoot,
    depsLockFilePath: join(repoRoot, 'package-lock.json'),
    runtime: functionRuntime,
    architecture: lambda.Architecture.ARM_64,
    bundling: functionBundling,
    ...functionLogging,
  };
}
