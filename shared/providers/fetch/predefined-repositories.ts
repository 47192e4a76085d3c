// clusterctl's built-in provider repositories (`cmd/clusterctl/client/config/providers_client.go`): the release URL
// used when a provider declares no fetchConfig.
import type { ProviderType } from '#shared/api/operator/v1alpha2/provider.ts';

const gh = (repo: string, file: string) => `https://github.com/${repo}/releases/latest/${file}`;
const infra = (repo: string) => gh(repo, 'infrastructure-components.yaml');

/** `providerType/name` → release URL. */
const repositories: Readonly<Record<string, string>> = {
  'CoreProvider/cluster-api': gh('kubernetes-sigs/cluster-api', 'core-components.yaml'),
  'InfrastructureProvider/linode-linode': infra('linode/cluster-api-provider-linode'),
  'InfrastructureProvider/aws': infra('kubernetes-sigs/cluster-api-provider-aws'),
  'InfrastructureProvider/azure': infra('kubernetes-sigs/cluster-api-provider-azure'),
  'InfrastructureProvider/docker': gh('kubernetes-sigs/cluster-api', 'infrastructure-components-development.yaml'),
  'InfrastructureProvider/cloudscale-ch-cloudscale': infra('cloudscale-ch/cluster-api-provider-cloudscale'),
  'InfrastructureProvider/cloudstack': infra('kubernetes-sigs/cluster-api-provider-cloudstack'),
  'InfrastructureProvider/digitalocean': infra('kubernetes-sigs/cluster-api-provider-digitalocean'),
  'InfrastructureProvider/gcp': infra('kubernetes-sigs/cluster-api-provider-gcp'),
  'InfrastructureProvider/tinkerbell-tinkerbell': infra('tinkerbell/cluster-api-provider-tinkerbell'),
  'InfrastructureProvider/metal3': infra('metal3-io/cluster-api-provider-metal3'),
  'InfrastructureProvider/nested': infra('kubernetes-sigs/cluster-api-provider-nested'),
  'InfrastructureProvider/oci': infra('oracle/cluster-api-provider-oci'),
  'InfrastructureProvider/openstack': infra('kubernetes-sigs/cluster-api-provider-openstack'),
  'InfrastructureProvider/sidero': infra('siderolabs/sidero'),
  'InfrastructureProvider/vcd': infra('vmware/cluster-api-provider-cloud-director'),
  'InfrastructureProvider/vsphere': infra('kubernetes-sigs/cluster-api-provider-vsphere'),
  'InfrastructureProvider/maas': infra('spectrocloud/cluster-api-provider-maas'),
  'InfrastructureProvider/coxedge': infra('coxedge/cluster-api-provider-coxedge'),
  'InfrastructureProvider/byoh': infra('vmware-tanzu/cluster-api-provider-bringyourownhost'),
  'InfrastructureProvider/harvester-harvester': infra('rancher-sandbox/cluster-api-provider-harvester'),
  'InfrastructureProvider/hetzner': infra('syself/cluster-api-provider-hetzner'),
  'InfrastructureProvider/huawei': infra('HuaweiCloudDeveloper/cluster-api-provider-huawei'),
  'InfrastructureProvider/outscale': infra('outscale/cluster-api-provider-outscale'),
  'InfrastructureProvider/ibmcloud': infra('kubernetes-sigs/cluster-api-provider-ibmcloud'),
  'InfrastructureProvider/nutanix': infra('nutanix-cloud-native/cluster-api-provider-nutanix'),
  'InfrastructureProvider/kubekey': infra('kubesphere/kubekey'),
  'InfrastructureProvider/kubevirt': infra('kubernetes-sigs/cluster-api-provider-kubevirt'),
  'InfrastructureProvider/vcluster': infra('loft-sh/cluster-api-provider-vcluster'),
  'InfrastructureProvider/virtink': infra('smartxworks/cluster-api-provider-virtink'),
  'InfrastructureProvider/proxmox': infra('ionos-cloud/cluster-api-provider-proxmox'),
  'InfrastructureProvider/k0sproject-k0smotron': infra('k0sproject/k0smotron'),
  'InfrastructureProvider/ionoscloud-ionoscloud': infra('ionos-cloud/cluster-api-provider-ionoscloud'),
  'InfrastructureProvider/vultr-vultr': infra('vultr/cluster-api-provider-vultr'),
  'InfrastructureProvider/opennebula': infra('OpenNebula/cluster-api-provider-opennebula'),
  'InfrastructureProvider/scaleway': infra('scaleway/cluster-api-provider-scaleway'),
  'InfrastructureProvider/metal-stack': infra('metal-stack/cluster-api-provider-metal-stack'),
  'InfrastructureProvider/oxide': infra('oxidecomputer/cluster-api-provider-oxide'),
  'InfrastructureProvider/kubeswift-io': infra('kubeswift-io/cluster-api-provider-kubeswift'),
  'InfrastructureProvider/kairos-io-fleet': infra('kairos-io/cluster-api-provider-kairos-fleet'),
  'BootstrapProvider/kubeadm': gh('kubernetes-sigs/cluster-api', 'bootstrap-components.yaml'),
  'BootstrapProvider/kubekey-k3s': gh('kubesphere/kubekey', 'bootstrap-components.yaml'),
  'BootstrapProvider/talos': gh('siderolabs/cluster-api-bootstrap-provider-talos', 'bootstrap-components.yaml'),
  'BootstrapProvider/microk8s': gh('canonical/cluster-api-bootstrap-provider-microk8s', 'bootstrap-components.yaml'),
  'BootstrapProvider/rke2': gh('rancher/cluster-api-provider-rke2', 'bootstrap-components.yaml'),
  'BootstrapProvider/k0sproject-k0smotron': gh('k0sproject/k0smotron', 'bootstrap-components.yaml'),
  'BootstrapProvider/canonical-kubernetes': gh('canonical/cluster-api-k8s', 'bootstrap-components.yaml'),
  'BootstrapProvider/kairos-io': gh('kairos-io/cluster-api-provider-kairos', 'bootstrap-components.yaml'),
  'ControlPlaneProvider/kubeadm': gh('kubernetes-sigs/cluster-api', 'control-plane-components.yaml'),
  'ControlPlaneProvider/kubekey-k3s': gh('kubesphere/kubekey', 'control-plane-components.yaml'),
  'ControlPlaneProvider/talos': gh(
    'siderolabs/cluster-api-control-plane-provider-talos',
    'control-plane-components.yaml',
  ),
  'ControlPlaneProvider/microk8s': gh(
    'canonical/cluster-api-control-plane-provider-microk8s',
    'control-plane-components.yaml',
  ),
  'ControlPlaneProvider/nested': gh('kubernetes-sigs/cluster-api-provider-nested', 'control-plane-components.yaml'),
  'ControlPlaneProvider/kamaji': gh(
    'clastix/cluster-api-control-plane-provider-kamaji',
    'control-plane-components.yaml',
  ),
  'ControlPlaneProvider/rke2': gh('rancher/cluster-api-provider-rke2', 'control-plane-components.yaml'),
  'ControlPlaneProvider/k0sproject-k0smotron': gh('k0sproject/k0smotron', 'control-plane-components.yaml'),
  'ControlPlaneProvider/canonical-kubernetes': gh('canonical/cluster-api-k8s', 'control-plane-components.yaml'),
  'ControlPlaneProvider/hosted-control-plane': gh(
    'teutonet/cluster-api-provider-hosted-control-plane',
    'control-plane-components.yaml',
  ),
  'ControlPlaneProvider/kairos-io': gh('kairos-io/cluster-api-provider-kairos', 'control-plane-components.yaml'),
  'IPAMProvider/in-cluster': gh('kubernetes-sigs/cluster-api-ipam-provider-in-cluster', 'ipam-components.yaml'),
  'IPAMProvider/metal3': gh('metal3-io/ip-address-manager', 'ipam-components.yaml'),
  'IPAMProvider/nutanix': gh('nutanix-cloud-native/cluster-api-ipam-provider-nutanix', 'ipam-components.yaml'),
  'AddonProvider/rancher-fleet': gh('rancher/cluster-api-addon-provider-fleet', 'addon-components.yaml'),
  'AddonProvider/helm': gh('kubernetes-sigs/cluster-api-addon-provider-helm', 'addon-components.yaml'),
  'AddonProvider/eitco-cdk8s': gh('eitco/cluster-api-addon-provider-cdk8s', 'addon-components.yaml'),
  'RuntimeExtensionProvider/nutanix': gh(
    'nutanix-cloud-native/cluster-api-runtime-extensions-nutanix',
    'runtime-extensions-components.yaml',
  ),
};

/**
 * The release URL clusterctl knows for a well-known provider, or undefined.
 *
 * @example
 * findPredefinedRepository('InfrastructureProvider', 'aws');
 * // 'https://github.com/kubernetes-sigs/cluster-api-provider-aws/releases/latest/infrastructure-components.yaml'
 */
export function findPredefinedRepository(providerType: ProviderType, name: string): string | undefined {
  const key = `${providerType}/${name}`;
  return Object.hasOwn(repositories, key) ? repositories[key] : undefined;
}
