package hostvalidation

import (
	"context"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// collectorKey is the context key of the warningCollector of one Validate call.
type collectorKey struct{}

// warningCollector gathers the host's warnings of the requests of one Validate call.
type warningCollector struct {
	mu   sync.Mutex
	msgs []string
}

func (c *warningCollector) add(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.msgs {
		if m == msg {
			return
		}
	}
	c.msgs = append(c.msgs, msg)
}

func (c *warningCollector) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

// WarningHandler is the rest.WarningHandlerWithContext a Validator's client must be configured
// with for Validate to return the host's warnings. The client's requests carry their context to
// the handler, so the handler hands each warning to the Validate call that sent the request,
// however many run at once. Warnings of requests that are not Validate's go to Fallback, or are
// logged like client-go does by default when Fallback is nil.
type WarningHandler struct {
	Fallback rest.WarningHandlerWithContext
}

var _ rest.WarningHandlerWithContext = WarningHandler{}

// HandleWarningHeaderWithContext implements rest.WarningHandlerWithContext.
func (h WarningHandler) HandleWarningHeaderWithContext(ctx context.Context, code int, agent string, message string) {
	if c, ok := ctx.Value(collectorKey{}).(*warningCollector); ok {
		// Like client-go's handlers: only 299 warnings are warnings of the API.
		if code == 299 && message != "" {
			c.add(message)
		}
		return
	}
	if h.Fallback != nil {
		h.Fallback.HandleWarningHeaderWithContext(ctx, code, agent, message)
		return
	}
	rest.WarningLogger{}.HandleWarningHeaderWithContext(ctx, code, agent, message)
}

// legacyHandler adapts a context-less rest.WarningHandler.
type legacyHandler struct{ h rest.WarningHandler }

func (l legacyHandler) HandleWarningHeaderWithContext(_ context.Context, code int, agent string, message string) {
	l.h.HandleWarningHeader(code, agent, message)
}

// NewClient builds the dynamic client of a Validator from cfg (the host, as fed-apiserver's own
// identity). It does not change cfg: it uses a copy whose warning handler is a WarningHandler
// falling back to cfg's own handler for requests of others, and whose requests impersonate the
// user of their context (AsCaller).
func NewClient(cfg *rest.Config) (*dynamic.DynamicClient, error) {
	c := rest.CopyConfig(cfg)
	h := WarningHandler{Fallback: c.WarningHandlerWithContext}
	if h.Fallback == nil && c.WarningHandler != nil {
		h.Fallback = legacyHandler{c.WarningHandler}
	}
	c.WarningHandler = nil
	c.WarningHandlerWithContext = h
	c.Wrap(AsCaller)
	return dynamic.NewForConfig(c)
}
