package upstreame2e

// A stand-in for the one kubelet feature upstream's e2e framework needs here: pods/portforward to the Docker
// provider's manager. For a Cluster on the in-memory backend the framework's workload-cluster client
// (framework/cluster_proxy.go, inMemoryDialer) never dials the workload API server's address: it port-forwards through
// the management cluster's API server to the `capd-system` Pod labelled `control-plane: controller-manager`, which in
// a kind cluster runs the Docker manager and its in-memory API servers. The harness runs that manager as a process on
// loopback and no kubelet, so the suite registers a Node whose kubelet endpoint is this server, and a Pod on it for
// the manager; the API server then forwards `pods/portforward` here, and the kubelet's own port-forward handler
// (k8s.io/kubelet/pkg/cri/streaming/portforward) copies each stream to 127.0.0.1:<port>, where the manager listens.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubelet/pkg/cri/streaming/portforward"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	standInNodeName      = "capi-serverless-harness"
	dockerManagerPodName = "capd-controller-manager"
	dockerManagerPodNs   = "capd-system"
)

// loopbackForwarder copies a port-forward stream to 127.0.0.1:<port>, whatever the Pod.
type loopbackForwarder struct{}

func (loopbackForwarder) PortForward(ctx context.Context, _ string, _ types.UID, port int32, stream io.ReadWriteCloser) error {
	defer stream.Close()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	<-done
	return nil
}

// startStandInKubelet serves `/portForward/<namespace>/<pod>` over HTTPS (a throwaway self-signed certificate: the
// harness's API server verifies no kubelet certificate) on a free loopback port and returns the port.
func startStandInKubelet(ctx context.Context) (int32, error) {
	cert, err := selfSignedCertificate()
	if err != nil {
		return 0, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/portForward/", func(w http.ResponseWriter, req *http.Request) {
		parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/portForward/"), "/")
		if len(parts) < 2 {
			http.Error(w, "expected /portForward/<namespace>/<pod>", http.StatusBadRequest)
			return
		}
		opts, err := portforward.NewV4Options(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		portforward.ServePortForward(w, req, loopbackForwarder{}, parts[1], "", opts, 4*time.Hour, 30*time.Second, portforward.SupportedProtocols)
	})
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		_ = server.Serve(tls.NewListener(listener, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}()
	go func() { <-ctx.Done(); _ = server.Close() }()
	return int32(listener.Addr().(*net.TCPAddr).Port), nil //nolint:gosec // a TCP port fits
}

func selfSignedCertificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: standInNodeName},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// registerDockerManagerPod writes the Node (kubelet endpoint: the stand-in) and the Pod the framework looks for.
func registerDockerManagerPod(ctx context.Context, c client.Client, kubeletPort int32) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: standInNodeName}}
	if err := c.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create Node %s: %w", standInNodeName, err)
	}
	node.Status = corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: kubeletPort}},
		Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(), Reason: "KubeletReady"}},
	}
	if err := c.Status().Update(ctx, node); err != nil {
		return fmt.Errorf("update Node %s status: %w", standInNodeName, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: dockerManagerPodNs}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create Namespace %s: %w", dockerManagerPodNs, err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      dockerManagerPodName,
			Namespace: dockerManagerPodNs,
			Labels:    map[string]string{"control-plane": "controller-manager", "cluster.x-k8s.io/provider": "infrastructure-docker"},
		},
		Spec: corev1.PodSpec{
			NodeName:   standInNodeName,
			Containers: []corev1.Container{{Name: "manager", Image: "registry.k8s.io/cluster-api/capd-manager:v1.14.2"}},
		},
	}
	if err := c.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create Pod %s/%s: %w", dockerManagerPodNs, dockerManagerPodName, err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning}
	if err := c.Status().Update(ctx, pod); err != nil {
		return fmt.Errorf("update Pod %s/%s status: %w", dockerManagerPodNs, dockerManagerPodName, err)
	}
	return nil
}
