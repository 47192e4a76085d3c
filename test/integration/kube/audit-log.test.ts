// The harness's audit log on a real kube-apiserver (what the side-by-side bench counts requests with): the API server
// accepts its flags, no size rotation is left to the writer's 100 MB default, and forEachEvent hands over the same
// events as events(), one at a time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject } from '#shared/kube/index.ts';
import { everyRequestAuditPolicy } from '#test/bench/side/count-requests.ts';
import { createAuditLog, type AuditEvent, type AuditLog } from '#test/support/harness/audit-log.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';

describe('the harness audit log', () => {
  let mgmt: TestCluster;
  let audit: AuditLog;
  before(async () => {
    audit = createAuditLog(everyRequestAuditPolicy);
    mgmt = await startManagementCluster({ name: 'audit-log', extraApiServerArgs: audit.apiServerArgs });
  });
  after(async () => {
    await mgmt?.stop();
    audit?.remove();
  });

  test('asks for no size rotation, and forEachEvent reads what events() reads, the writes included', async () => {
    assert.ok(audit.apiServerArgs.some((a) => /^--audit-log-maxsize=\d{5,}$/.test(a)));
    for (let i = 0; i < 5; i++)
      await applyObject(
        mgmt.kube,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: `audited-${i}` } },
        { fieldManager: 'test-user' },
      );
    const streamed: AuditEvent[] = [];
    audit.forEachEvent((e) => streamed.push(e));
    const whole = audit.events();
    assert.ok(whole.length >= 5);
    // NOTE: the API server may append between the two reads; what both saw is the same, in the same order.
    assert.deepEqual(streamed.slice(0, whole.length), whole.slice(0, streamed.length));
    const patches = streamed.filter((e) => e.verb === 'patch' && e.objectRef?.name?.startsWith('audited-'));
    assert.ok(patches.length >= 5, `${patches.length} patches of the ConfigMaps`);
  });
});
