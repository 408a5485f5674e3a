package clusters

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericrest "k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/rest"

	"github.com/fedhq/fed/apis/cluster"
	"github.com/fedhq/fed/apiserver/clusterproxy"
)

// MemberConfigs are the members' client configurations: the controllers' cache
// (clusterclient.Cache), built from the Cluster and its credentials Secret as the informers
// have them, or a pull cluster's agent's tunnel.
type MemberConfigs interface {
	Config(cluster string) (*rest.Config, error)
}

// ProxyREST is clusters/proxy: any request under /clusters/NAME/proxy/ goes to the same path
// on the member, as the calling user.
type ProxyREST struct {
	// Clusters reads Cluster objects (the clusters storage).
	Clusters genericrest.Getter
	// Members are the members' client configurations.
	Members MemberConfigs
}

var (
	_ genericrest.Connecter = &ProxyREST{}
	_ genericrest.Storage   = &ProxyREST{}
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
func (r *ProxyREST) Connect(ctx context.Context, name string, opts runtime.Object, responder genericrest.Responder) (http.Handler, error) {
	proxyOpts, ok := opts.(*cluster.ClusterProxyOptions)
	if !ok {
		return nil, fmt.Errorf("invalid options object: %#v", opts)
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewUnauthorized("no user in the request")
	}
	if _, err := r.Clusters.Get(ctx, name, &metav1.GetOptions{}); err != nil {
		return nil, err
	}
	cfg, err := r.config(ctx, name)
	if err != nil {
		return nil, apierrors.NewServiceUnavailable(err.Error())
	}
	return clusterproxy.Handler(cfg, u, proxyOpts.Path, proxy.NewErrorResponder(responder))
}

// informerLag is how long the proxy waits for the controllers' informers to have a Cluster
// the storage has (one just joined).
const informerLag = 2 * time.Second

// config is the member's configuration, once the informers have its Cluster.
func (r *ProxyREST) config(ctx context.Context, name string) (*rest.Config, error) {
	var cfg *rest.Config
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, informerLag, true, func(context.Context) (bool, error) {
		cfg, last = r.Members.Config(name)
		return last == nil || !apierrors.IsNotFound(last), nil
	})
	if last != nil || err != nil {
		return nil, cmp.Or(last, err)
	}
	return cfg, nil
}
