// A client for the Go oracle (test/support/oracles/go): one long-lived process per test file, asked questions as JSON lines.
// The binary is built once from the Go module proxy and cached (test/support/oracles/go/build.sh).
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export type GoFieldError = {
  /** apimachinery's field.ErrorType, e.g. `FieldValueInvalid`. */
  readonly type: string;
  readonly field: string;
  readonly detail: string;
  /** `err.Error()`: `field: Invalid value: ...: detail`. */
  readonly message: string;
};

export type TemplateRequest = {
  readonly op: 'template';
  readonly name: string;
  readonly text: string;
  readonly data: unknown;
  readonly functions?: 'sprig' | 'builtin';
  readonly missingKey?: 'default' | 'zero' | 'error';
};
export type TemplateAnswer =
  | { readonly crashed: true; readonly detail: string }
  | { readonly output: string; readonly invalidUTF8?: boolean }
  | { readonly phase: 'parse' | 'exec'; readonly detail: string };

/** regexp.Compile, then per input MatchString, FindString, FindAllString(n), ReplaceAll(Literal)String, Split(n). */
export type RegexpRequest = {
  readonly op: 'regexp';
  readonly pattern: string;
  readonly inputs: readonly string[];
  readonly replacement?: string;
  /** For FindAllString and Split; -1 if not given. */
  readonly n?: number;
};
export type RegexpAnswer = {
  readonly crashed?: true;
  readonly compileError?: string;
  readonly matches?: readonly boolean[];
  readonly find?: readonly string[];
  readonly findAll?: readonly (readonly string[])[];
  readonly replaced?: readonly string[];
  readonly replacedLiteral?: readonly string[];
  readonly split?: readonly (readonly string[])[];
};

export type VariablesRequest =
  | { readonly op: 'validateClusterClassVariables'; readonly classVariables: readonly unknown[] }
  | {
      readonly op: 'validateClusterVariables' | 'defaultClusterVariables';
      readonly values: readonly unknown[];
      /** The values before an update (oldSelf of transition rules); validateClusterVariables only. */
      readonly oldValues?: readonly unknown[];
      readonly definitions: readonly unknown[];
      /** Machine/control plane overrides: required variables are not checked, none are created by defaulting. */
      readonly overrides?: boolean;
      readonly fieldPath?: string;
    };
export type VariablesAnswer = {
  readonly crashed?: true;
  readonly fieldErrors?: readonly GoFieldError[];
  readonly defaulted?: readonly { readonly name: string; readonly value?: unknown }[];
};

/** Closed CEL expressions evaluated in the Kubernetes base CEL environment (the one new rules compile in). */
export type CelRequest = { readonly op: 'cel'; readonly expressions: readonly string[] };
export type CelResult = { readonly compileError?: boolean; readonly value?: string; readonly error?: string };
export type CelAnswer = { readonly crashed?: true; readonly results?: readonly CelResult[] };

/** Go's strconv: Quote of each byte string, QuoteRune of each rune, Unquote of each input. */
export type StrconvRequest = {
  readonly op: 'strconv';
  /** base64, so any bytes (invalid UTF-8 included). */
  readonly bytes?: readonly string[];
  readonly runes?: readonly number[];
  readonly inputs?: readonly string[];
};
export type StrconvAnswer = {
  readonly crashed?: true;
  readonly quoted?: readonly string[];
  readonly quotedRunes?: readonly string[];
  /** value: the unquoted bytes, base64. */
  readonly unquoted?: readonly { readonly value: string; readonly error?: string }[];
};

/** Go's url.Parse, or url.ParseRequestURI, of each input. */
export type UrlRequest = { readonly op: 'url'; readonly inputs: readonly string[]; readonly requestURI?: boolean };
export type GoUrl = {
  readonly error?: string;
  readonly scheme: string;
  readonly opaque: string;
  readonly user: string;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly fragment: string;
  readonly rawFragment: string;
  readonly escapedPath: string;
  readonly hostname: string;
  readonly port: string;
  readonly query: Readonly<Record<string, readonly string[]>> | null;
};
export type UrlAnswer = { readonly crashed?: true; readonly urls?: readonly GoUrl[] };

/**
 * Go's time.ParseDuration of each input; Duration.String and Duration.Round(roundTo) of each duration (int64
 * nanoseconds as decimal text).
 */
export type DurationRequest = {
  readonly op: 'duration';
  readonly inputs?: readonly string[];
  readonly durations?: readonly string[];
  readonly roundTo?: string;
};
export type DurationAnswer = {
  readonly crashed?: true;
  readonly parsed?: readonly { readonly nanos?: string; readonly error?: string }[];
  readonly strings?: readonly string[];
  readonly rounded?: readonly string[];
};

/** An object through upstream's admission webhook (ClusterTopology and RuntimeSDK gates on). */
export type AdmissionOracleRequest = {
  readonly op: 'validateExtensionConfig' | 'defaultExtensionConfig' | 'validateClusterClass';
  readonly object: unknown;
};
export type AdmissionAnswer = {
  readonly crashed?: true;
  readonly admission?: {
    readonly allowed: boolean;
    readonly message?: string;
    readonly reason?: string;
    readonly code?: number;
    readonly causes?: readonly { readonly type: string; readonly field: string; readonly message: string }[];
    readonly warnings?: readonly string[];
    /** defaultExtensionConfig: the object after upstream's Default. */
    readonly object?: unknown;
  };
};

type OracleRequest =
  | TemplateRequest
  | RegexpRequest
  | VariablesRequest
  | CelRequest
  | AdmissionOracleRequest
  | StrconvRequest
  | UrlRequest
  | DurationRequest;

type AnswerFor<R> = R extends DurationRequest
  ? DurationAnswer
  : R extends StrconvRequest
    ? StrconvAnswer
    : R extends UrlRequest
      ? UrlAnswer
      : R extends AdmissionOracleRequest
        ? AdmissionAnswer
        : R extends TemplateRequest
          ? TemplateAnswer
          : R extends RegexpRequest
            ? RegexpAnswer
            : R extends CelRequest
              ? CelAnswer
              : VariablesAnswer;

export type GoOracle = {
  ask<R extends OracleRequest>(request: R): Promise<AnswerFor<R>>;
  close(): Promise<void>;
};

/** Builds the oracle if needed (a few minutes, once per machine) and returns the binary's path. */
export function buildGoOracle(): string {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'go', 'build.sh');
  const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  return out.trim().split('\n').pop() ?? '';
}

/**
 * Starts the oracle. Answers come back in the order of the questions, so a FIFO of pending promises pairs them.
 *
 * @example
 * const go = startGoOracle();
 * await go.ask({ op: 'regexp', pattern: '^a+$', inputs: ['aa'] }); // { matches: [true] }
 * await go.close();
 */
export function startGoOracle(): GoOracle {
  const binary = buildGoOracle();
  let proc: ChildProcessWithoutNullStreams | undefined;
  let pending: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  const start = (): ChildProcessWithoutNullStreams => {
    const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const mine = pending;
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    child.on('error', (err) => {
      for (const p of mine.splice(0)) p.reject(err);
    });
    // NOTE: some inputs crash Go itself (a map merged into itself overflows the stack in fmt, a fatal error no
    // recover() catches); the question in flight is answered `crashed` and the next question starts a new process.
    child.on('exit', () => {
      if (proc === child) proc = undefined;
      const [first, ...rest] = mine.splice(0);
      first?.resolve({ crashed: true, detail: stderr.slice(0, 400) });
      for (const p of rest) p.reject(new Error('Go oracle restarted'));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const next = mine.shift();
      if (!next) throw new Error(`Go oracle said something unasked: ${line}`);
      const answer = JSON.parse(line) as { error?: string };
      if (answer.error !== undefined) next.reject(new Error(`Go oracle: ${answer.error}`));
      else next.resolve(answer);
    });
    return child;
  };
  return {
    ask<R extends OracleRequest>(request: R): Promise<AnswerFor<R>> {
      if (!proc) {
        pending = [];
        proc = start();
      }
      const child = proc;
      return new Promise<AnswerFor<R>>((resolve, reject) => {
        pending.push({ resolve: resolve as (v: unknown) => void, reject });
        child.stdin.write(`${JSON.stringify(request)}\n`);
      });
    },
    close(): Promise<void> {
      const child = proc;
      proc = undefined;
      if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      });
    },
  };
}

/** Property-test settings: a fixed seed and a small number of runs in `npm test`; ORACLE_SEED/ORACLE_RUNS for more. */
export function oracleRunSettings(defaultRuns: number): { readonly seed: number; readonly numRuns: number } {
  const seed = Number(process.env['ORACLE_SEED'] ?? '20261123');
  const numRuns = Number(process.env['ORACLE_RUNS'] ?? String(defaultRuns));
  if (!Number.isSafeInteger(seed)) throw new Error(`ORACLE_SEED must be an integer, got ${process.env['ORACLE_SEED']}`);
  if (!Number.isSafeInteger(numRuns) || numRuns < 1)
    throw new Error(`ORACLE_RUNS must be a positive integer, got ${process.env['ORACLE_RUNS']}`);
  return { seed, numRuns };
}
