// Package hostvalidation validates templates of the host's native kinds with the host's own
// rules, as their author: it sends them to the host's kube-apiserver as server-side dry-run
// creates impersonating the user who wrote them (AsCaller), in the template's own namespace,
// so that a template the host would refuse its author is refused with exactly the error
// kubectl users know, and the host's warnings reach the user. Nothing is ever created in the
// host: every request it sends carries dryRun=All.
package hostvalidation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/fedhq/fed/apis/native"
)

// Validator validates templates of the host's native kinds by a server-side dry-run create in the host.
//
// The host's warnings reach Validate only through a warning handler of the client's
// configuration: build Client with NewClient, or set the configuration's
// WarningHandlerWithContext to a WarningHandler before building it. With any other client
// Validate still returns the host's errors, but no warnings.
type Validator struct {
	// Client reaches the host, impersonating the user of each request's context (NewClient).
	Client dynamic.Interface
	// Namespace is the host namespace a namespaced template is dry-run in when the host has
	// no namespace of the template's own ("fed-system").
	Namespace string
	// HostNamespaces, when set and synced, says which namespaces the host has, so that a
	// template of a namespace it lacks is sent to Namespace at once; without it, the host's
	// NotFound says so, at the cost of a second request.
	HostNamespaces corelisters.NamespaceLister
	HostSynced     func() bool
}

// inHost says whether the host has namespace, and it is not being deleted: known is false
// when the Validator cannot tell without asking the host.
func (v *Validator) inHost(namespace string) (in, known bool) {
	if v.HostNamespaces == nil || v.HostSynced == nil || !v.HostSynced() {
		return false, false
	}
	ns, err := v.HostNamespaces.Get(namespace)
	return err == nil && ns.DeletionTimestamp == nil, true
}

// metadataOwnedByStorage are the metadata fields only fed's storage owns; they are not part of
// what the host validates of a template, and some (resourceVersion) make a create fail.
var metadataOwnedByStorage = []string{
	"resourceVersion", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
	"generation", "managedFields", "ownerReferences", "finalizers", "selfLink",
}

// structuralNames are the kinds whose name is part of their meaning (it must match their spec),
// so that a template of theirs cannot be validated under another name.
var structuralNames = map[schema.GroupResource]bool{
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}: true,
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}:             true,
}

// couldNotValidate prefixes the warnings of templates the host could not validate.
const couldNotValidate = "fed could not validate this template with the host cluster: "

// Validate dry-runs obj (a template of resource gvr; namespaced tells its scope) in the host and
// returns the host's warnings, or the host's error. fieldValidation is the request's
// fieldValidation directive ("Strict", "Warn", "Ignore" or ""), passed on to the host.
//
// ctx must carry the request's user (request.WithUser): the host judges the template as that
// user creating it. A namespaced template is checked in the host namespace of its own name,
// or in Namespace when the host has none of that name (or it is being deleted there).
//
// Errors are the host's *apierrors.StatusError for Invalid (422), BadRequest (400, e.g.
// strict decoding errors) and Forbidden (403: the author may not create such an object in
// the host, RBAC escalation checks and admission included), naming the template rather than
// what was sent to the host. The host's ResourceQuota of the namespace is not one of them:
// it counts the host's objects, and the fleet applies quotas to its own. When the host
// cannot judge the template (it does not serve the kind or does not support creating it,
// or, for CustomResourceDefinitions and APIServices, an object of that name exists there)
// Validate returns a warning saying so and no error; any other failure is an InternalError
// or a ServiceUnavailable error, never a silent pass.
func (v *Validator) Validate(ctx context.Context, gvr schema.GroupVersionResource, namespaced bool, obj *unstructured.Unstructured, fieldValidation string) (warnings []string, dryRun *unstructured.Unstructured, err error) {
	warnings, err = v.validate(ctx, gvr, namespaced, obj, fieldValidation, &dryRun)
	if err != nil {
		dryRun = nil
	}
	return warnings, dryRun, err
}

func (v *Validator) validate(ctx context.Context, gvr schema.GroupVersionResource, namespaced bool, obj *unstructured.Unstructured, fieldValidation string,
	dryRun **unstructured.Unstructured) (warnings []string, err error) {
	if v.Client == nil {
		return nil, apierrors.NewInternalError(errors.New("hostvalidation: the Validator has no host client"))
	}
	if namespaced && v.Namespace == "" {
		return nil, apierrors.NewInternalError(errors.New("hostvalidation: the Validator has no host namespace"))
	}
	if obj == nil {
		return nil, apierrors.NewInternalError(errors.New("hostvalidation: no template to validate"))
	}
	t := template{name: obj.GetName(), namespace: obj.GetNamespace(), namespaced: namespaced}

	o := obj.DeepCopy()
	if meta, ok := o.Object["metadata"].(map[string]interface{}); ok {
		for _, f := range metadataOwnedByStorage {
			delete(meta, f)
		}
	}
	if gvr.GroupResource() == (schema.GroupResource{Resource: "services"}) {
		// A Service template's cluster IP is the fleet's own (what an earlier dry run
		// answered): the host would refuse one of its Services holds meanwhile.
		native.StripClusterIPs(o)
	}
	if !namespaced {
		o.SetNamespace("")
	}

	var col warningCollector
	ctx = context.WithValue(ctx, collectorKey{}, &col)
	created, err := v.create(ctx, gvr, o, &t, fieldValidation)
	if namespaced && t.hostNamespace != v.Namespace && notInHost(err, t.hostNamespace) {
		// The host has no namespace of the template's name (its author's rights are then
		// cluster-wide ones), or it is being deleted there: the template is checked in
		// fed's own namespace, still as its author.
		col = warningCollector{}
		created, err = v.create(ctx, gvr, o, &t, fieldValidation)
	}
	warnings = col.list()
	if errors.As(err, new(alreadyExists)) {
		return append(t.rewriteAll(warnings), couldNotValidate+"an object of that name exists in the host cluster"), nil
	}
	if err == nil {
		*dryRun = created
		return t.rewriteAll(warnings), nil
	}

	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		// Not an answer of the host: it could not be reached, or the request was cancelled.
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("fed could not validate the template with the host cluster: %v", err))
	}
	st := status.Status()
	switch {
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return t.rewriteAll(warnings), t.rewriteError(st)
	case apierrors.IsForbidden(err) && strings.Contains(st.Message, quotaExceeded):
		// The host's quota of the namespace counts the host's own objects; the fleet
		// applies the namespace's quotas to its templates itself (fleet.Quota).
		return t.rewriteAll(warnings), nil
	case apierrors.IsForbidden(err):
		// The author may not make this object in the host (RBAC, escalation, an admission
		// plugin or webhook): nor may they through the fleet.
		return t.rewriteAll(warnings), t.rewriteError(st)
	case apierrors.IsAlreadyExists(err):
		// Only when the host also had an object of the generated name.
		return append(t.rewriteAll(warnings), couldNotValidate+"an object of that name exists in the host cluster"), nil
	case apierrors.IsNotFound(err):
		if st.Details != nil && st.Details.Kind == "namespaces" && st.Details.Name == v.Namespace && namespaced {
			return nil, apierrors.NewServiceUnavailable(fmt.Sprintf(
				"fed could not validate the template with the host cluster: the host namespace %q where fed validates templates does not exist: %s", v.Namespace, st.Message))
		}
		reason := st.Message
		if reason == "" || strings.Contains(reason, "could not find the requested resource") {
			reason = fmt.Sprintf("the host does not serve %s: %s", gvrString(gvr), reason)
		}
		return append(t.rewriteAll(warnings), couldNotValidate+strings.TrimSuffix(reason, ": ")), nil
	case apierrors.IsMethodNotSupported(err):
		return append(t.rewriteAll(warnings), couldNotValidate+st.Message), nil
	case isTransient(st):
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("fed could not validate the template with the host cluster: %s", st.Message))
	default:
		return nil, apierrors.NewInternalError(fmt.Errorf("fed could not validate the template with the host cluster: %w", err))
	}
}

// quotaExceeded is in the host's refusal of an object its ResourceQuota has no room for
// (`deployments.apps "x" is forbidden: exceeded quota: q, requested: ...`).
const quotaExceeded = "is forbidden: exceeded quota: "

// create sends o to the host as a dry-run create, in the template's own namespace the
// first time and in fed's the second (t.hostNamespace says which), under a name the host
// generates when an object of o's name exists there. It notes in t what to rewrite in the
// host's answers.
func (v *Validator) create(ctx context.Context, gvr schema.GroupVersionResource, o *unstructured.Unstructured, t *template,
	fieldValidation string) (*unstructured.Unstructured, error) {
	o = o.DeepCopy()
	var client dynamic.ResourceInterface = v.Client.Resource(gvr)
	if t.namespaced {
		t.hostNamespace = t.namespace
		if in, known := v.inHost(t.namespace); t.tried || known && !in {
			t.hostNamespace = v.Namespace
		}
		o.SetNamespace(t.hostNamespace)
		client = v.Client.Resource(gvr).Namespace(t.hostNamespace)
	}
	t.tried, t.generatedName = true, ""
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: fieldValidation}
	created, err := client.Create(ctx, o, opts)
	if !apierrors.IsAlreadyExists(err) || t.name == "" {
		return created, err
	}
	if structuralNames[gvr.GroupResource()] {
		return nil, alreadyExists{}
	}
	// Validate the rest of the object under a name the host generates.
	o.SetName("")
	o.SetGenerateName(generateNamePrefix(t.name))
	created, err = client.Create(ctx, o, opts)
	if created != nil && created.GetName() != t.name {
		t.generatedName = created.GetName()
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if d := status.Status().Details; d != nil && d.Name != "" && d.Name != t.name {
			t.generatedName = d.Name // an error of the generateName attempt names it
		}
	}
	return created, err
}

// alreadyExists is the answer for a kind whose name is part of its meaning when the host
// has an object of that name: such a template cannot be validated under another.
type alreadyExists struct{}

func (alreadyExists) Error() string { return "exists" }

// notInHost says whether err is the host's refusal because namespace does not exist there
// or is being deleted.
func notInHost(err error, namespace string) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	st := status.Status()
	if st.Details == nil {
		return false
	}
	if apierrors.IsNotFound(err) {
		return st.Details.Kind == "namespaces" && st.Details.Name == namespace
	}
	if apierrors.IsForbidden(err) {
		for _, c := range st.Details.Causes {
			if c.Type == corev1.NamespaceTerminatingCause {
				return true
			}
		}
	}
	return false
}

func isTransient(st metav1.Status) bool {
	switch st.Code {
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return true
	}
	switch st.Reason {
	case metav1.StatusReasonTimeout, metav1.StatusReasonServerTimeout, metav1.StatusReasonTooManyRequests, metav1.StatusReasonServiceUnavailable:
		return true
	}
	return false
}

func gvrString(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource + "/" + gvr.Version
	}
	return gvr.Resource + "." + gvr.Group + "/" + gvr.Version
}

// generateNamePrefix is the generateName a template named name is retried with: a short prefix
// of the name that is still a valid name once the host appends its random suffix.
func generateNamePrefix(name string) string {
	const max = 40
	if len(name) > max {
		name = name[:max]
	}
	name = strings.TrimRightFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z')
	})
	if name == "" {
		return "fed-"
	}
	return name + "-"
}

// template is what the host's answers are made right for: the template's own name and
// namespace instead of the host namespace and the name the host generated.
type template struct {
	name, namespace string
	hostNamespace   string // where the host checked it
	namespaced      bool
	generatedName   string
	tried           bool // sent once already, in its own namespace
}

// rewrite makes a message of the host speak of the template.
func (t template) rewrite(s string) string {
	if t.generatedName != "" && t.name != "" {
		s = strings.ReplaceAll(s, t.generatedName, t.name)
	}
	if !t.namespaced || t.hostNamespace == "" || t.hostNamespace == t.namespace {
		return s
	}
	host := fmt.Sprintf("namespace %q", t.hostNamespace)
	if t.namespace != "" {
		return strings.ReplaceAll(s, host, fmt.Sprintf("namespace %q", t.namespace))
	}
	s = strings.ReplaceAll(s, " in the "+host, "")
	s = strings.ReplaceAll(s, " in "+host, "")
	return s
}

func (t template) rewriteAll(msgs []string) []string {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = t.rewrite(m)
	}
	return out
}

// rewriteError is the host's error about the template, naming the template.
func (t template) rewriteError(st metav1.Status) *apierrors.StatusError {
	st = *st.DeepCopy()
	st.Message = t.rewrite(st.Message)
	if st.Details != nil {
		if t.name != "" {
			st.Details.Name = t.name
		}
		for i := range st.Details.Causes {
			st.Details.Causes[i].Message = t.rewrite(st.Details.Causes[i].Message)
		}
	}
	return &apierrors.StatusError{ErrStatus: st}
}
