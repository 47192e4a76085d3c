// The API server's audit log for tests that must tell writers apart: capi-serverless writes topology objects with
// upstream's field manager (`capi-topology`), so managedFields cannot say who wrote; the audit log records the user of
// every write with its `fieldManager` (and `dryRun`) query parameters.
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Metadata of every write to Cluster API's groups; nothing else. */
export const capiWritesAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, update, patch, delete]
  resources:
  - group: cluster.x-k8s.io
  - group: controlplane.cluster.x-k8s.io
  - group: infrastructure.cluster.x-k8s.io
  - group: bootstrap.cluster.x-k8s.io
  - group: addons.cluster.x-k8s.io
- level: None
`;

/** Metadata of every request (a workload cluster's log, to tell its clients apart by user agent). */
export const allRequestsAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`;

export type AuditEvent = {
  verb: string;
  requestURI: string;
  user: { username: string };
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
  requestObject?: unknown;
};

export type AuditLog = {
  /** kube-apiserver flags writing this log (pass as `extraApiServerArgs`). */
  readonly apiServerArgs: readonly string[];
  /** Every event logged so far. */
  events(): AuditEvent[];
  /** Every event so far, read in chunks and handed over one at a time (for logs too large for one string). */
  forEachEvent(onEvent: (event: AuditEvent) => void): void;
  /** The events logged since the previous call of `readNew` (incremental: a long log is read once). */
  readNew(): AuditEvent[];
  remove(): void;
};

/**
 * A JSON audit log in a fresh temporary folder, with `policy` (default: `capiWritesAuditPolicy`).
 *
 * @example
 * const audit = createAuditLog();
 * const mgmt = await startUpstreamManagementCluster({ extraApiServerArgs: audit.apiServerArgs });
 * audit.events().filter((e) => e.requestURI.includes('fieldManager=capi-topology'));
 */
export function createAuditLog(policy: string = capiWritesAuditPolicy): AuditLog {
  const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-audit-'));
  writeFileSync(join(dir, 'policy.yaml'), policy);
  const logPath = join(dir, 'audit.log');
  let offset = 0;
  let partial = '';
  return {
    readNew() {
      let fd: number;
      try {
        fd = openSync(logPath, 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      const chunks: Buffer[] = [];
      try {
        const buf = Buffer.alloc(1 << 20);
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, offset);
          if (n === 0) break;
          chunks.push(Buffer.from(buf.subarray(0, n)));
          offset += n;
        }
      } finally {
        closeSync(fd);
      }
      const lines = (partial + Buffer.concat(chunks).toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      return lines.filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
    },
    apiServerArgs: [
      `--audit-policy-file=${join(dir, 'policy.yaml')}`,
      `--audit-log-path=${logPath}`,
      '--audit-log-format=json',
      // NOTE: the log writer (lumberjack) rotates at 100 MB when no size is given, and only the newest file is read
      // here: a long run (the side-by-side bench at N = 100) would lose its earlier requests.
      '--audit-log-maxsize=100000',
    ],
    forEachEvent(onEvent) {
      let fd: number;
      try {
        fd = openSync(logPath, 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      // NOTE: chunk by chunk, one line at a time: the log of a long run does not fit one string.
      try {
        const buf = Buffer.alloc(1 << 20);
        let at = 0;
        let rest = '';
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, at);
          if (n === 0) break;
          at += n;
          const lines = (rest + buf.toString('utf8', 0, n)).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) if (line) onEvent(JSON.parse(line) as AuditEvent);
        }
        if (rest) onEvent(JSON.parse(rest) as AuditEvent);
      } finally {
        closeSync(fd);
      }
    },
    events() {
      let text: string;
      try {
        text = readFileSync(logPath, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditEvent);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
