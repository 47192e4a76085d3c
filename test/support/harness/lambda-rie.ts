// The bundled functions in a Lambda runtime: the CDK app synthesized the way `cdk synth` runs it (its esbuild
// bundles, its template), each function's asset directory served by the AWS Lambda Runtime Interface Emulator running
// the Node runtime interface client (aws-lambda-ric) on Node 22, and a stand-in for the AWS Parameters and Secrets
// Lambda Extension (the layer the stack attaches) that serves the secrets the functions read at run time.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getFreePort } from './ports.ts';
import { probeHttp, startHarnessProcess, waitForProcesses, type HarnessProcess } from './processes.ts';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The Node 22 that .ci/run installs (the functions' Lambda runtime is nodejs22.x). */
export const node22BinDir = join(homedir(), '.cache', 'capi-serverless', 'node22', 'node_modules', 'node', 'bin');

/** The paths of the cached emulator and runtime interface client (built by .ci/run; no network needed here). */
export async function getLambdaRuntimeTools(): Promise<{ rie: string; ric: string }> {
  const env = { ...process.env, PATH: `${node22BinDir}${delimiter}${process.env['PATH'] ?? ''}` };
  const lastLine = async (script: string) => {
    const { stdout } = await run('bash', [join(repoRoot, 'test', 'support', 'harness', script)], { env });
    return stdout.trim().split('\n').at(-1) ?? '';
  };
  return { rie: await lastLine('build-lambda-rie.sh'), ric: await lastLine('install-lambda-ric.sh') };
}

/** One function of the synthesized template: its bundle directory, handler, runtime and environment. */
export type SynthesizedFunction = {
  readonly logicalId: string;
  /** `POWERTOOLS_SERVICE_NAME` without its `capi-serverless-` prefix: topology, addons, providers, webhooks. */
  readonly controller: string;
  readonly assetDir: string;
  readonly handler: string;
  readonly runtime: string;
  readonly environment: Readonly<Record<string, unknown>>;
};

export type CloudAssembly = {
  readonly outdir: string;
  readonly functions: readonly SynthesizedFunction[];
  /** The CloudFormation type of each resource, to resolve `Ref`s in the environment. */
  readonly resourceTypes: Readonly<Record<string, string>>;
  remove(): void;
};

/**
 * Runs the CDK app (`cdk.json`'s `app` command) into a temporary directory with the given context, exactly as the CDK
 * CLI does (CDK_OUTDIR and CDK_CONTEXT_JSON), or reads an existing assembly (`existingOutdir`, e.g. RIE_CDK_OUT).
 */
export async function synthesizeApp(
  context: Readonly<Record<string, string>>,
  existingOutdir?: string,
): Promise<CloudAssembly> {
  // NOTE: outside the repository, so Node cannot resolve a module the bundle lacks from the repository's node_modules.
  if (existingOutdir && !relative(repoRoot, resolvePath(existingOutdir)).startsWith('..'))
    throw new Error(`${existingOutdir}: use a cloud assembly outside the repository (cdk synth -o /tmp/...)`);
  let outdir = existingOutdir;
  if (!outdir) {
    outdir = mkdtempSync(join(tmpdir(), 'capi-rie-cdk-out-'));
    const app = (JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { app: string }).app;
    await run('sh', ['-c', app], {
      cwd: repoRoot,
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        // NOTE: the CLI turns asset metadata on by default; it names each function's bundle directory.
        CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:enable-asset-metadata': true, ...context }),
      },
      maxBuffer: 64 * 1024 * 1024,
    });
  }
  const templateFile = readdirSync(outdir).find((f) => f.endsWith('.template.json'));
  if (!templateFile) throw new Error(`no template in ${outdir}`);
  type Resource = {
    Type: string;
    Metadata?: Record<string, unknown>;
    Properties?: Record<string, unknown> & { Environment?: { Variables?: Record<string, unknown> } };
  };
  const template = JSON.parse(readFileSync(join(outdir, templateFile), 'utf8')) as {
    Resources: Record<string, Resource>;
  };
  const functions: SynthesizedFunction[] = [];
  const resourceTypes: Record<string, string> = {};
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    resourceTypes[logicalId] = resource.Type;
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') continue;
    const environment = resource.Properties?.Environment?.Variables ?? {};
    const service = environment['POWERTOOLS_SERVICE_NAME'];
    functions.push({
      logicalId,
      controller: typeof service === 'string' ? service.replace(/^capi-serverless-/, '') : logicalId,
      assetDir: join(outdir, assetPath),
      handler: String(resource.Properties?.['Handler']),
      runtime: String(resource.Properties?.['Runtime']),
      environment,
    });
  }
  const created = !existingOutdir;
  return {
    outdir,
    functions,
    resourceTypes,
    remove: () => (created ? rmSync(outdir, { recursive: true, force: true }) : undefined),
  };
}

/** What the template's references stand for here. */
export type EnvironmentBindings = {
  /**
   * The value of a `Ref` by the referenced resource's CloudFormation type (a function of its logical id, or a fixed
   * value); `undefined` drops the variable.
   */
  readonly refsByType: Readonly<Record<string, string | undefined | ((logicalId: string) => string)>>;
  /** The value of `Fn::GetAtt: [id, 'Arn']` by the resource's type (a function of its logical id); unbound throws. */
  readonly arnsByType?: Readonly<Record<string, (logicalId: string) => string>>;
  readonly region: string;
  readonly accountId: string;
};

/**
 * The template's environment with intrinsics resolved (`Ref` and `Fn::GetAtt … Arn` by resource type, pseudo
 * parameters, `Fn::Join`); an
 * intrinsic it does not know throws, so a new kind of setting in infra/ is noticed here.
 */
export function resolveEnvironment(
  fn: SynthesizedFunction,
  assembly: CloudAssembly,
  bindings: EnvironmentBindings,
): Record<string, string> {
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': bindings.region,
    'AWS::AccountId': bindings.accountId,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (value: unknown, name: string): string | undefined => {
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object' && 'Ref' in value && typeof value.Ref === 'string') {
      const pseudoValue = pseudo[value.Ref];
      if (pseudoValue !== undefined) return pseudoValue;
      const type = assembly.resourceTypes[value.Ref];
      if (type === undefined || !(type in bindings.refsByType))
        throw new Error(`${fn.controller}: ${name} refers to ${value.Ref} (${type ?? 'unknown'}), not bound here`);
      const bound = bindings.refsByType[type];
      return typeof bound === 'function' ? bound(value.Ref) : bound;
    }
    if (value && typeof value === 'object' && 'Fn::GetAtt' in value && Array.isArray(value['Fn::GetAtt'])) {
      const [id, attribute] = value['Fn::GetAtt'] as [string, string];
      const type = assembly.resourceTypes[id];
      const arnOf = type === undefined ? undefined : bindings.arnsByType?.[type];
      if (attribute === 'Arn' && arnOf) return arnOf(id);
    }
    if (value && typeof value === 'object' && 'Fn::Join' in value && Array.isArray(value['Fn::Join'])) {
      const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
      const resolved = parts.map((p) => resolve(p, name));
      return resolved.some((p) => p === undefined) ? undefined : resolved.join(separator);
    }
    throw new Error(`${fn.controller}: ${name} is ${JSON.stringify(value)}, an intrinsic not resolved here`);
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    const resolved = resolve(value, name);
    if (resolved !== undefined) env[name] = resolved;
  }
  return env;
}

/**
 * A stand-in for the AWS Parameters and Secrets Lambda Extension's HTTP API (`GET /secretsmanager/get?secretId=`,
 * authenticated with the function's session token), serving `secrets` by the id a function asks for (the name or ARN
 * its environment holds).
 */
export async function startSecretsExtension(
  secrets: ReadonlyMap<string, string>,
  sessionToken: string,
): Promise<{ port: number; requests: () => readonly string[]; stop(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const secretId = url.searchParams.get('secretId') ?? '';
    requests.push(secretId);
    if (req.headers['x-aws-parameters-secrets-token'] !== sessionToken) {
      res.writeHead(401).end('missing or wrong X-Aws-Parameters-Secrets-Token');
      return;
    }
    const secretString = secrets.get(secretId);
    if (url.pathname !== '/secretsmanager/get' || secretString === undefined) {
      res.writeHead(400).end(`ResourceNotFoundException: ${secretId}`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ Name: secretId.split(':').at(-1), ARN: secretId, SecretString: secretString }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type EmulatedFunction = {
  readonly name: string;
  readonly process: HarnessProcess;
  /** POSTs `event` to the emulator's invoke API; the HTTP status and the function's response. */
  invoke(event: unknown): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
};

/**
 * Starts `aws-lambda-rie` serving one bundle: `node <ric>/index.mjs <handler>` in the bundle's directory (Lambda's
 * task root), with only `environment` (the emulator passes its own environment to the function) and Node 22 on PATH.
 */
export async function startEmulatedFunction(
  fn: SynthesizedFunction,
  tools: { rie: string; ric: string },
  environment: Readonly<Record<string, string>>,
  timeoutSeconds = 120,
): Promise<EmulatedFunction> {
  const port = await getFreePort();
  const runtimeApiPort = await getFreePort();
  const env = {
    PATH: `${node22BinDir}${delimiter}/usr/local/bin${delimiter}/usr/bin${delimiter}/bin`,
    ...environment,
    LAMBDA_TASK_ROOT: fn.assetDir,
    _HANDLER: fn.handler,
    AWS_LAMBDA_FUNCTION_NAME: `capi-serverless-${fn.controller}`,
    AWS_LAMBDA_FUNCTION_TIMEOUT: String(timeoutSeconds),
  };
  const proc = startHarnessProcess(
    `rie-${fn.controller}`,
    tools.rie,
    [
      '--runtime-interface-emulator-address',
      `127.0.0.1:${port}`,
      '--runtime-api-address',
      `127.0.0.1:${runtimeApiPort}`,
      join(node22BinDir, 'node'),
      join(tools.ric, 'index.mjs'),
      fn.handler,
    ],
    { env, cwd: fn.assetDir },
  );
  const base = `http://127.0.0.1:${port}`;
  // NOTE: any HTTP answer means the emulator listens (it starts the runtime on the first invocation).
  await waitForProcesses(
    `aws-lambda-rie for ${fn.controller}`,
    async () => (await probeHttp(base)) > 0,
    [proc],
    30_000,
  );
  return {
    name: fn.controller,
    process: proc,
    async invoke(event) {
      const res = await fetch(`${base}/2015-03-31/functions/function/invocations`, {
        method: 'POST',
        body: JSON.stringify(event),
        signal: AbortSignal.timeout((timeoutSeconds + 30) * 1000),
      });
      return { status: res.status, body: await res.text() };
    },
    stop: () => proc.stop(),
  };
}
