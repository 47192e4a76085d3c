// The forwarder's heartbeat through a real kube-apiserver: the forwarder's renewal creates and renews the Lease, the
// health check finds nothing wrong while it is fresh, and reports a stale or missing heartbeat as one finding, which
// counts toward the alarmed `Unhealthy` metric.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { applyObject, deleteObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import { checkHealth, forwarderHeartbeatLease, recordHealthFindings } from '#shared/health/index.ts';
import { createMetrics, publishMetricsWhenAny } from '#shared/runtime/middlewares/record-metrics.ts';
import { runHealthCheck } from '#shared/health/run-health-check.ts';
import type { RuntimeDeps } from '#shared/runtime/types.ts';
import { startHeartbeat } from '#functions/forwarder/renew-heartbeat.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';

const namespace = forwarderHeartbeatLease.namespace;
const renewedAt = new Date('2026-11-27T12:00:00.000Z');
let mgmt: TestCluster;

before(async () => {
  mgmt = await startManagementCluster({ name: 'forwarder-heartbeat', crds: 'none' });
  await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as KubeObject, {
    fieldManager: 'heartbeat-test',
  });
});
after(async () => mgmt?.stop());

describe('forwarder heartbeat', () => {
  test('a missing Lease is one finding', async () => {
    const findings = await checkHealth({ kube: mgmt.kube, now: () => renewedAt.getTime() });
    assert.deepEqual(
      findings.map((f) => f.check),
      ['forwarderHeartbeat'],
    );
    assert.match(findings[0]?.message ?? '', /does not exist/);
  });

  test("the forwarder's renewal creates the Lease; fresh within three intervals, stale after", async () => {
    const heartbeat = startHeartbeat({ kube: mgmt.kube, holder: 'forwarder-0', now: () => renewedAt });
    heartbeat.stop();
    await heartbeat.renew();
    const lease = (await getObject(mgmt.kube, { ...forwarderHeartbeatLease })) as KubeObject & {
      spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string };
    };
    assert.equal(lease.spec.holderIdentity, 'forwarder-0');
    assert.equal(lease.spec.leaseDurationSeconds, 180);
    assert.equal(Date.parse(lease.spec.renewTime), renewedAt.getTime());
    const at = (seconds: number) => checkHealth({ kube: mgmt.kube, now: () => renewedAt.getTime() + seconds * 1000 });
    assert.deepEqual(await at(179), []);
    const stale = await at(600);
    assert.equal(stale.length, 1);
    assert.match(stale[0]?.message ?? '', /stale: last renewed 600 s ago by forwarder-0/);
  });

  test('findings publish Unhealthy; none publish nothing', async () => {
    const lines: string[] = [];
    const metrics: Metrics = createMetrics();
    Object.assign(metrics, { console: { log: (line: string) => lines.push(line), warn: () => undefined } });
    recordHealthFindings(metrics, await checkHealth({ kube: mgmt.kube, now: () => renewedAt.getTime() }));
    publishMetricsWhenAny(metrics);
    assert.deepEqual(lines, []);
    await deleteObject(mgmt.kube, { ...forwarderHeartbeatLease });
    recordHealthFindings(metrics, await checkHealth({ kube: mgmt.kube, now: () => renewedAt.getTime() }));
    publishMetricsWhenAny(metrics);
    assert.equal(lines.length, 1);
    assert.equal((JSON.parse(lines[0] ?? '{}') as Record<string, unknown>)['Unhealthy'], 1);
  });
});

describe('the topology function’s tick health check (runHealthCheck)', () => {
  test('a missing heartbeat is counted and logged as unhealthy; a fresh one is neither', async () => {
    const errors: unknown[] = [];
    const deps = {
      kube: mgmt.kube,
      now: () => renewedAt.getTime(),
      logger: { error: (...args: unknown[]) => errors.push(args) },
    } as unknown as RuntimeDeps;
    await deleteObject(mgmt.kube, { ...forwarderHeartbeatLease }).catch(() => undefined);
    const lines: string[] = [];
    const metrics: Metrics = createMetrics();
    Object.assign(metrics, { console: { log: (line: string) => lines.push(line), warn: () => undefined } });
    const missing = await runHealthCheck(deps, metrics);
    assert.equal(missing.length, 1);
    assert.equal(errors.length, 1);
    publishMetricsWhenAny(metrics);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /"Unhealthy"/);
    const heartbeat = startHeartbeat({ kube: mgmt.kube, holder: 'forwarder-0', now: () => renewedAt });
    heartbeat.stop();
    await heartbeat.renew();
    assert.deepEqual(await runHealthCheck(deps, metrics), []);
    assert.equal(errors.length, 1, 'nothing logged while healthy');
  });
});
