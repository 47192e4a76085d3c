// The forwarder's RBAC (the chart's files/forwarder-rbac.yaml) grants read access to what it watches and nothing more: list and watch only (no get
// but on its two webhook configurations, no writes), bound to its own ServiceAccount; its one write is its heartbeat Lease, in its own namespace.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { defaultTargets } from '#functions/forwarder/default-targets.ts';
import { webhookConfigurationNames } from '#shared/health/webhook-probe.ts';
import { chartFile } from '../../../../infra/chart/chart-files.ts';

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
type Doc = { kind: string; metadata: { name: string }; rules?: Rule[]; subjects?: unknown[]; roleRef?: unknown };

const docs = parseAllDocuments(readFileSync(chartFile('forwarder-rbac.yaml'), 'utf8')).map((d) => d.toJS() as Doc);

describe('forwarder RBAC', () => {
  const role = docs.find((d) => d.kind === 'ClusterRole');

  test('the ClusterRole grants only list and watch, and get on its own two webhook configurations', () => {
    assert.ok(role?.rules?.length);
    for (const rule of role.rules as (Rule & { resourceNames?: string[] })[]) {
      assert.ok(rule.verbs.length > 0);
      if (rule.apiGroups.includes('admissionregistration.k8s.io')) {
        // NOTE: the webhook probe reads the URLs the API server calls (functions/forwarder/probe-webhooks.ts).
        assert.deepEqual(rule.verbs, ['get']);
        assert.deepEqual(rule.resourceNames?.slice().sort(), Object.values(webhookConfigurationNames).sort());
        continue;
      }
      for (const verb of rule.verbs)
        assert.ok(['list', 'watch'].includes(verb), `${verb} on ${rule.resources.join(',')}`);
    }
  });

  test('Secrets and ConfigMaps are listed and watched, never read one by one', () => {
    const core = role?.rules?.find((r) => r.apiGroups.includes(''));
    assert.deepEqual(core?.resources.slice().sort(), ['configmaps', 'secrets']);
    assert.deepEqual(core?.verbs.slice().sort(), ['list', 'watch']);
  });

  test('the ClusterRole is bound once, to the forwarder’s ServiceAccount', () => {
    assert.deepEqual(docs.map((d) => d.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
    const binding = docs.find((d) => d.kind === 'ClusterRoleBinding');
    assert.deepEqual(binding?.subjects, [
      { kind: 'ServiceAccount', name: 'capi-serverless-forwarder', namespace: 'capi-serverless-system' },
    ]);
    assert.deepEqual(binding?.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'capi-serverless-forwarder',
    });
  });

  test('its one write is the heartbeat Lease, in its own namespace', () => {
    const heartbeat = docs.find((d) => d.kind === 'Role') as
      (Doc & { metadata: { namespace: string }; rules: (Rule & { resourceNames?: string[] })[] }) | undefined;
    assert.equal(heartbeat?.metadata.namespace, 'capi-serverless-system');
    for (const rule of heartbeat?.rules ?? []) {
      assert.deepEqual([rule.apiGroups, rule.resources], [['coordination.k8s.io'], ['leases']]);
      // NOTE: RBAC cannot name the object of a create; everything else is limited to the heartbeat Lease.
      if (!rule.verbs.every((v) => v === 'create'))
        assert.deepEqual(rule.resourceNames, ['capi-serverless-forwarder-heartbeat']);
    }
    const binding = docs.find((d) => d.kind === 'RoleBinding');
    assert.deepEqual(binding?.subjects, [
      { kind: 'ServiceAccount', name: 'capi-serverless-forwarder', namespace: 'capi-serverless-system' },
    ]);
  });
});

describe('forwarder RBAC covers its watch list', () => {
  const role = docs.find((d) => d.kind === 'ClusterRole');
  // NOTE: the kinds' plurals are regular (ClusterClass → clusterclasses); the templates are found among the CRDs.
  const plural = (kind: string) => `${kind.toLowerCase()}${kind.endsWith('s') ? 'es' : 's'}`;
  const allows = (group: string, resource: string) =>
    role?.rules?.some(
      (r) =>
        r.apiGroups.includes(group) &&
        (r.resources.includes(resource) || r.resources.includes('*')) &&
        r.verbs.includes('list') &&
        r.verbs.includes('watch'),
    ) ?? false;

  for (const target of defaultTargets({ scope: 'resource-set' })) {
    const group = target.apiVersion.includes('/') ? target.apiVersion.split('/')[0]! : '';
    test(`lists and watches ${target.apiVersion} ${target.kind} (a kind it watches by default)`, () => {
      assert.ok(allows(group, plural(target.kind)), `no list and watch on ${plural(target.kind)}.${group}`);
    });
  }
});
