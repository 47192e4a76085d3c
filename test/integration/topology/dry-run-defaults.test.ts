// Providers' webhooks that default the topology's dry runs only (upstream's kubeadm bootstrap and control-plane
// webhooks apply older defaults — `format`, `imagePullPolicy` — when a dry-run request carries the
// topology.cluster.x-k8s.io/dry-run annotation): found by the differential against upstream's topology controller,
// where every pass after a change rotated the MachineDeployments' KubeadmConfigTemplates and rolled them out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject } from '#shared/kube/index.ts';
import { TopologyDryRunAnnotation } from '#shared/topology/apply/apply-intent.ts';
import { startWebhookServer, type WebhookServer } from '#test/support/harness/webhook-server.ts';
import {
  capi,
  dig,
  machineDeployment,
  mustGet,
  pass,
  put,
  setUpClass,
  testCluster,
  useTopologyCluster,
} from '#test/integration/topology/setup.ts';

const ctx = useTopologyCluster();

type Review = {
  request: {
    uid: string;
    dryRun?: boolean;
    object?: { metadata?: { annotations?: Record<string, string> }; spec?: { template?: { spec?: object } } };
  };
};

/** As upstream's KubeadmConfigTemplate defaulter: `spec.template.spec.format` set on the topology's dry runs only. */
async function startDryRunDefaulter(): Promise<WebhookServer> {
  return startWebhookServer(async (event) => {
    const review = JSON.parse(Buffer.from((event as { body: string }).body, 'base64').toString('utf8')) as Review;
    const { request } = review;
    const topologyDryRun =
      request.dryRun === true && request.object?.metadata?.annotations?.[TopologyDryRunAnnotation] !== undefined;
    const spec = request.object?.spec?.template?.spec as { format?: string } | undefined;
    const patch =
      topologyDryRun && spec && spec.format === undefined
        ? [{ op: 'add', path: '/spec/template/spec/format', value: 'cloud-config' }]
        : undefined;
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: request.uid,
          allowed: true,
          ...(patch ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') } : {}),
        },
      }),
    };
  });
}

let server: WebhookServer | undefined;

describe('a webhook that defaults the topology dry runs only', () => {
  before(async () => {
    server = await startDryRunDefaulter();
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'dry-run-defaults' },
        webhooks: [
          {
            name: 'default.kubeadmconfigtemplate.test.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 5,
            clientConfig: { url: `${server.url}/mutate`, caBundle: server.caBundle },
            rules: [
              {
                apiGroups: ['bootstrap.cluster.x-k8s.io'],
                apiVersions: ['*'],
                operations: ['CREATE', 'UPDATE'],
                resources: ['kubeadmconfigtemplates'],
                scope: 'Namespaced',
              },
            ],
          },
        ],
      } as never,
      { fieldManager: 'test-user', force: true },
    );
  });
  after(async () => {
    await server?.stop();
  });

  test('keeps the KubeadmConfigTemplates after a scale: no rotation, no write', async () => {
    const ns = 'dry-run-defaults';
    await setUpClass(ctx, ns);
    const key = { namespace: ns, name: 'c1' };
    await put(ctx, testCluster(ns, 'c1'));
    assert.equal((await pass(ctx, key)).result, 'Success');
    const before = await machineDeployment(ctx, ns, 'md-a');
    const bootstrapName = dig(before, 'spec', 'template', 'spec', 'bootstrap', 'configRef', 'name') as string;
    const stored = await mustGet(ctx, 'bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfigTemplate', {
      namespace: ns,
      name: bootstrapName,
    });
    assert.equal(dig(stored, 'spec', 'template', 'spec', 'format'), undefined, 'stored without the dry-run default');

    const scaled = testCluster(ns, 'c1');
    scaled.spec!.topology!.workers!.machineDeployments![0]!.replicas = 3;
    await put(ctx, scaled);
    ctx.pass.log.reset();
    const outcome = await pass(ctx, key);
    assert.equal(outcome.result, 'Success', outcome.error);
    assert.ok(
      outcome.changed.every((c) => !c.startsWith('rotated')),
      `no template rotated: ${outcome.changed.join('; ')}`,
    );
    const after = await machineDeployment(ctx, ns, 'md-a');
    assert.equal(dig(after, 'spec', 'replicas'), 3);
    assert.equal(dig(after, 'spec', 'template', 'spec', 'bootstrap', 'configRef', 'name'), bootstrapName);
    assert.deepEqual(
      ctx.pass.log
        .mutating()
        .filter((r) => !r.path.endsWith('/status'))
        .map((r) => `${r.method} ${r.path}`),
      [`PATCH /apis/${capi}/namespaces/${ns}/machinedeployments/${after?.metadata.name ?? ''}`],
      'the scale is the only write (besides the Cluster status)',
    );

    ctx.pass.log.reset();
    assert.deepEqual((await pass(ctx, key)).changed, []);
    assert.deepEqual(ctx.pass.log.mutating(), [], 'and the next pass writes nothing');
  });
});
