// Upstream Cluster API v1.14.2's own e2e specs (sigs.k8s.io/cluster-api/test/e2e), run against a management cluster
// that already exists: the local plane of capi-serverless's harness (kube-apiserver and etcd, upstream's managers with
// the Docker provider's in-memory backend, capi-serverless doing topology and ClusterResourceSets, upstream's test
// Runtime Extension behind its Service). Nothing here creates a kind cluster or runs `clusterctl init`: the suite
// reads the cluster's kubeconfig, builds a clusterctl local repository from the e2e config the runner wrote, and
// hands both to upstream's spec functions unchanged. Run by test/upstream-e2e/run.ts (`npm run test:upstream-e2e`).
package upstreame2e

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"sigs.k8s.io/cluster-api/test/framework"
	"sigs.k8s.io/cluster-api/test/framework/clusterctl"
	"sigs.k8s.io/cluster-api/test/framework/ginkgoextensions"
)

var (
	configPath     string
	artifactFolder string
	kubeconfigPath string
	skipCleanup    bool

	ctx                   = ctrl.SetupSignalHandler()
	e2eConfig             *clusterctl.E2EConfig
	clusterctlConfigPath  string
	bootstrapClusterProxy framework.ClusterProxy
)

func init() {
	flag.StringVar(&configPath, "e2e.config", "", "path to the e2e config file (written by run.ts)")
	flag.StringVar(&artifactFolder, "e2e.artifacts-folder", "", "folder for the clusterctl repository, logs and dumps")
	flag.StringVar(&kubeconfigPath, "e2e.kubeconfig", "", "kubeconfig of the existing management cluster")
	flag.BoolVar(&skipCleanup, "e2e.skip-resource-cleanup", false, "keep the workload clusters after each spec")
}

func TestUpstreamE2E(t *testing.T) {
	g := NewWithT(t)
	ctrl.SetLogger(klog.Background())
	g.Expect(os.MkdirAll(artifactFolder, 0o750)).To(Succeed())
	RegisterFailHandler(Fail)
	w, err := ginkgoextensions.EnableFileLogging(filepath.Join(artifactFolder, "ginkgo-log.txt"))
	g.Expect(err).ToNot(HaveOccurred())
	defer w.Close()
	RunSpecs(t, "upstream-e2e")
}

var _ = BeforeSuite(func() {
	Expect(configPath).To(BeAnExistingFile(), "-e2e.config must name an existing file")
	Expect(kubeconfigPath).To(BeAnExistingFile(), "-e2e.kubeconfig must name an existing file")

	By("Loading the e2e configuration")
	e2eConfig = clusterctl.LoadE2EConfig(ctx, clusterctl.LoadE2EConfigInput{ConfigPath: configPath})
	Expect(e2eConfig).ToNot(BeNil())

	By("Creating a clusterctl local repository from the provider components the harness built")
	clusterctlConfigPath = clusterctl.CreateRepository(ctx, clusterctl.CreateRepositoryInput{
		E2EConfig:        e2eConfig,
		RepositoryFolder: filepath.Join(artifactFolder, "repository"),
	})
	Expect(clusterctlConfigPath).To(BeAnExistingFile())

	By("Using the existing management cluster (no kind, no clusterctl init)")
	bootstrapClusterProxy = framework.NewClusterProxy("bootstrap", kubeconfigPath, initScheme())
	Expect(bootstrapClusterProxy).ToNot(BeNil())

	By("Standing in for the kubelet's pods/portforward to the Docker manager (no kubelet runs here)")
	kubeletPort, err := startStandInKubelet(ctx)
	Expect(err).ToNot(HaveOccurred())
	Expect(registerDockerManagerPod(ctx, bootstrapClusterProxy.GetClient(), kubeletPort)).To(Succeed())
})

var _ = AfterSuite(func() {
	if bootstrapClusterProxy != nil {
		bootstrapClusterProxy.Dispose(context.Background())
	}
})

func initScheme() *runtime.Scheme {
	sc := runtime.NewScheme()
	framework.TryAddDefaultSchemes(sc)
	return sc
}
