// On an EKS management cluster the stack creates the access AWS owns: an access entry per function role (webhooks
// included) mapped to its own Kubernetes group, which the chart's files/functions-rbac.yaml binds to a least-privilege ClusterRole; the
// forwarder's role with an EKS Pod Identity association; and outputs a chart's values can be read from.
import assert from 'node:assert/strict';
import { controllers } from '#shared/checkpoint/table.ts';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Template } from 'aws-cdk-lib/assertions';
import { parseAllDocuments } from 'yaml';
import { CapiServerlessStack } from '../../../infra/capi-serverless-stack.ts';
import { chartFile } from '../../../infra/chart/chart-files.ts';
import { functionGroups } from '../../../infra/cluster-access.ts';
import { createTestApp } from '../../support/builders/test-app.ts';

type Resource = { Properties: Record<string, unknown> };
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
type Doc = {
  kind: string;
  metadata: { name: string };
  rules?: Rule[];
  roleRef?: { name: string };
  subjects?: { kind: string; name: string }[];
};

const eksCluster = { name: 'mgmt', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: 'Y2E=' };
const rbacFile = chartFile('functions-rbac.yaml');
const rbac = parseAllDocuments(readFileSync(rbacFile, 'utf8')).map((d) => d.toJS() as Doc);

describe('cluster access on EKS', () => {
  const template = Template.fromStack(new CapiServerlessStack(createTestApp(), 'Eks', { eksCluster }));
  const resources = (type: string) => template.findResources(type) as Record<string, Resource>;

  test('every function role, webhooks included, has an access entry mapped to its own group, none cluster-admin', () => {
    const entries = Object.values(resources('AWS::EKS::AccessEntry'));
    const fnRoles = Object.values(resources('AWS::Lambda::Function'))
      .filter((f) => f.Properties['Handler'] === 'index.handler')
      .map((f) => JSON.stringify(f.Properties['Role']));
    assert.equal(fnRoles.length, controllers.length + 1);
    assert.deepEqual(
      entries.map((e) => JSON.stringify(e.Properties['PrincipalArn'])).sort(),
      fnRoles.sort(),
      'one entry per function role',
    );
    const groups = entries.map((e) => {
      assert.equal(e.Properties['ClusterName'], 'mgmt');
      assert.equal(e.Properties['Type'], 'STANDARD');
      assert.equal(e.Properties['AccessPolicies'], undefined, 'no EKS access policy (cluster-admin or otherwise)');
      return (e.Properties['KubernetesGroups'] as string[]).join();
    });
    assert.deepEqual(groups.sort(), Object.values(functionGroups).sort());
    assert.ok(!groups.some((g) => g.startsWith('system:')));
  });

  test('the forwarder’s role is trusted by EKS Pod Identity and associated with its ServiceAccount', () => {
    const [association] = Object.values(resources('AWS::EKS::PodIdentityAssociation'));
    assert.deepEqual(
      [
        association?.Properties['ClusterName'],
        association?.Properties['Namespace'],
        association?.Properties['ServiceAccount'],
      ],
      ['mgmt', 'capi-serverless-system', 'capi-serverless-forwarder'],
    );
    const roleId = (association?.Properties['RoleArn'] as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const role = resources('AWS::IAM::Role')[roleId];
    const trust = JSON.stringify(role?.Properties['AssumeRolePolicyDocument']);
    assert.match(trust, /pods\.eks\.amazonaws\.com/);
    assert.match(trust, /sts:AssumeRole/);
    assert.match(trust, /sts:TagSession/);
    assert.match(JSON.stringify(role?.Properties['ManagedPolicyArns']), /ForwarderPolicy/);
  });

  test('outputs what a chart needs: Function URL, bus, table, roles and groups, the forwarder’s role', () => {
    const outputs = template.toJSON() as { Outputs: Record<string, { Value: unknown }> };
    for (const key of [
      'EventBusName',
      'TableName',
      'ForwarderRoleArn',
      'webhooksRoleArn',
      'topologyRoleArn',
      'ChartValues',
    ])
      assert.ok(outputs.Outputs[key], key);
    const values = JSON.stringify(outputs.Outputs['ChartValues']?.Value);
    for (const key of [
      'eventBusName',
      'tableName',
      'baseUrl',
      'tokenKubeSecret',
      'roleArn',
      'capi-serverless:webhooks',
    ])
      assert.ok(values.includes(key), key);
  });

  for (const [name, props] of [
    ['on EKS', { eksCluster }],
    ['with a kubeconfig secret', { kubeconfigSecretName: 'mgmt-kubeconfig' }],
  ] as const)
    test(`IRSA (${name}): the forwarder’s role is trusted by the OIDC provider for its ServiceAccount only`, () => {
      const issuer = 'oidc.eks.eu-west-1.amazonaws.com/id/0123456789ABCDEF';
      const t = Template.fromStack(
        new CapiServerlessStack(createTestApp(), 'Irsa', {
          ...props,
          forwarderIdentity: 'irsa',
          oidcIssuer: `https://${issuer}`,
          forwarderNamespace: 'capi-system',
        }),
      );
      t.resourceCountIs('AWS::EKS::PodIdentityAssociation', 0);
      const roles = Object.values(t.findResources('AWS::IAM::Role') as Record<string, Resource>).filter((r) =>
        JSON.stringify(r.Properties['ManagedPolicyArns'] ?? '').includes('ForwarderPolicy'),
      );
      assert.equal(roles.length, 1, 'one forwarder role');
      const [statement, ...more] = (
        roles[0]?.Properties['AssumeRolePolicyDocument'] as { Statement: Record<string, unknown>[] }
      ).Statement;
      assert.deepEqual(more, [], 'no other principal may assume it');
      assert.equal(statement?.['Action'], 'sts:AssumeRoleWithWebIdentity');
      assert.match(JSON.stringify(statement?.['Principal']), new RegExp(`:oidc-provider/${issuer}`));
      assert.deepEqual(statement?.['Condition'], {
        StringEquals: {
          [`${issuer}:sub`]: 'system:serviceaccount:capi-system:capi-serverless-forwarder',
          [`${issuer}:aud`]: 'sts.amazonaws.com',
        },
      });
      const outputs = t.toJSON() as { Outputs: Record<string, { Value: unknown }> };
      const values = JSON.stringify(outputs.Outputs['ChartValues']?.Value);
      assert.match(values, /\\"identity\\":\\"irsa\\"/, values);
      assert.match(values, /\\"irsaRoleArn\\":/, values);
      assert.ok(outputs.Outputs['ForwarderRoleArn']);
    });

  test('no Pod Identity Agent add-on unless asked; asked, one that outlives the stack', () => {
    template.resourceCountIs('AWS::EKS::Addon', 0);
    const t = Template.fromStack(
      new CapiServerlessStack(createTestApp(), 'Agent', { eksCluster, podIdentityAgent: true }),
    );
    t.resourceCountIs('AWS::EKS::Addon', 1);
    t.hasResourceProperties('AWS::EKS::Addon', {
      ClusterName: 'mgmt',
      AddonName: 'eks-pod-identity-agent',
      PreserveOnDelete: true,
    });
  });

  test('without an EKS cluster (a kubeconfig secret) there is no access entry and no association', () => {
    const t = Template.fromStack(
      new CapiServerlessStack(createTestApp(), 'Kubeconfig', { kubeconfigSecretName: 'mgmt-kubeconfig' }),
    );
    t.resourceCountIs('AWS::EKS::AccessEntry', 0);
    t.resourceCountIs('AWS::EKS::PodIdentityAssociation', 0);
  });
});

describe('functions-rbac.yaml', () => {
  const roles = rbac.filter((d) => d.kind === 'ClusterRole');
  const bindings = rbac.filter((d) => d.kind === 'ClusterRoleBinding');

  test('binds each function group to its own ClusterRole, and nothing else', () => {
    assert.deepEqual(
      bindings.map((b) => [b.subjects?.map((s) => `${s.kind}/${s.name}`).join(), b.roleRef?.name]).sort(),
      Object.entries(functionGroups)
        .map(([fn, group]) => [`Group/${group}`, `capi-serverless-${fn}`])
        .sort(),
    );
    assert.deepEqual(roles.map((r) => r.metadata.name).sort(), bindings.map((b) => b.roleRef?.name).sort());
  });

  test('no wildcard verb and no wildcard group: least privilege, not cluster-admin', () => {
    for (const role of roles)
      for (const rule of role.rules ?? []) {
        assert.ok(!rule.verbs.includes('*'), `${role.metadata.name}: a wildcard verb`);
        assert.ok(!rule.apiGroups.includes('*'), `${role.metadata.name}: a wildcard API group`);
      }
  });

  test('the webhooks only read, and only the providers function may bind or escalate roles', () => {
    const verbsOf = (name: string) =>
      new Set(roles.find((r) => r.metadata.name === name)?.rules?.flatMap((r) => r.verbs));
    assert.deepEqual([...verbsOf('capi-serverless-webhooks')].sort(), ['get', 'list']);
    for (const fn of ['topology', 'addons', 'webhooks'])
      for (const verb of ['bind', 'escalate', 'impersonate']) assert.ok(!verbsOf(`capi-serverless-${fn}`).has(verb));
  });
});

describe('flow-control.yaml', () => {
  test("the FlowSchema serves every function's access-entry group at capi-serverless's priority level", () => {
    const file = chartFile('flow-control.yaml');
    type Subject = { kind: string; group?: { name: string } };
    type FlowSchema = { kind: string; spec?: { rules?: { subjects: Subject[] }[] } };
    const schemas = parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS() as FlowSchema)
      .filter((d) => d.kind === 'FlowSchema');
    const groups = new Set(
      schemas.flatMap((s) => s.spec?.rules?.flatMap((r) => r.subjects.map((x) => x.group?.name)) ?? []),
    );
    for (const group of Object.values(functionGroups)) assert.ok(groups.has(group), `${group} is not a subject`);
  });
});
