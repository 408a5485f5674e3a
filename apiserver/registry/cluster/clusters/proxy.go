package clusters

import (
	"context"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/proxy"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/fedhq/fed/apis/cluster"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apiserver/clusterproxy"
	"github.com/fedhq/fed/apiserver/scheme"
	"github.com/fedhq/fed/apiserver/tunnel"
	"github.com/fedhq/fed/clusterclient"
)

// SecretGetter reads a Secret of the host cluster, where member credentials are kept.
type SecretGetter func(ctx context.Context, namespace, name string) (*corev1.Secret, error)

// ProxyREST is clusters/proxy: any request under /clusters/NAME/proxy/ goes to the same path
// on the member, as the calling user.
type ProxyREST struct {
	// Clusters reads Cluster objects (the clusters storage).
	Clusters rest.Getter
	Secrets  SecretGetter
	// Tunnels reach pull clusters, through their agents.
	Tunnels *tunnel.Server
}

var (
	_ rest.Connecter = &ProxyREST{}
	_ rest.Storage   = &ProxyREST{}
)

// proxyMethods are every verb of the Kubernetes API.
var proxyMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// New returns an empty Cluster, the object this subresource belongs to.
func (r *ProxyREST) New() runtime.Object { return &cluster.Cluster{} }

// Destroy has nothing to release: the storage is the clusters storage's.
func (r *ProxyREST) Destroy() {}

// ConnectMethods lists the methods the proxy accepts.
func (r *ProxyREST) ConnectMethods() []string { return proxyMethods }

// NewConnectOptions says the rest of the URL path goes into ClusterProxyOptions.Path.
func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &cluster.ClusterProxyOptions{}, true, "path"
}

// Connect returns the handler that forwards the request to the member.
func (r *ProxyREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	proxyOpts, ok := opts.(*cluster.ClusterProxyOptions)
	if !ok {
		return nil, fmt.Errorf("invalid options object: %#v", opts)
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewUnauthorized("no user in the request")
	}
	obj, err := r.Clusters.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	versioned := &clusterv1alpha1.Cluster{}
	if err := scheme.Scheme.Convert(obj, versioned, nil); err != nil {
		return nil, err
	}
	if versioned.Spec.SyncMode == clusterv1alpha1.Pull {
		cfg, err := r.Tunnels.Config(name)
		if err != nil {
			return nil, apierrors.NewServiceUnavailable(err.Error())
		}
		return clusterproxy.Handler(cfg, u, proxyOpts.Path, proxy.NewErrorResponder(responder))
	}
	ref := versioned.Spec.SecretRef
	if ref == nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("cluster %s has no credentials (spec.secretRef); join it with kubectl fed join", name))
	}
	secret, err := r.Secrets(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("cluster %s: reading its credentials %s/%s: %v", name, ref.Namespace, ref.Name, err))
	}
	cfg, err := clusterclient.BuildConfig(versioned, secret)
	if err != nil {
		return nil, apierrors.NewServiceUnavailable(err.Error())
	}
	return clusterproxy.Handler(cfg, u, proxyOpts.Path, proxy.NewErrorResponder(responder))
}
