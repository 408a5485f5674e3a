package crd

import (
	"fmt"
	"reflect"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Names are the names already used in one API group by other CRD templates
// or by the host's native kinds. As in the host's naming controller,
// resource names and kinds are two namespaces: a requested plural, singular
// or short name conflicts with any of Plurals ∪ Singulars ∪ ShortNames, a
// requested kind or listKind with any of Kinds ∪ ListKinds. Nil sets are
// empty.
type Names struct {
	Plurals, Kinds, ShortNames, Singulars sets.Set[string]
	ListKinds                             sets.Set[string]
}

// Add records the names of one resource (e.g. a native kind of the group).
// Empty strings are ignored.
func (n *Names) Add(plural, singular, kind, listKind string, shortNames ...string) {
	add := func(s *sets.Set[string], vs ...string) {
		for _, v := range vs {
			if v == "" {
				continue
			}
			if *s == nil {
				*s = sets.New[string]()
			}
			s.Insert(v)
		}
	}
	add(&n.Plurals, plural)
	add(&n.Singulars, singular)
	add(&n.Kinds, kind)
	add(&n.ListKinds, listKind)
	add(&n.ShortNames, shortNames...)
}

func (n Names) resources() sets.Set[string] {
	return sets.New[string]().Union(n.Plurals).Union(n.Singulars).Union(n.ShortNames)
}

func (n Names) kinds() sets.Set[string] {
	return sets.New[string]().Union(n.Kinds).Union(n.ListKinds)
}

// TakenNames collects the status.acceptedNames of the CRD templates in group,
// except the one named self (metadata.name), as the host's naming controller
// does. Templates that cannot be decoded are skipped.
func TakenNames(group string, crds []*unstructured.Unstructured, self string) Names {
	var n Names
	for _, u := range crds {
		if u == nil || u.GetName() == self {
			continue
		}
		c, err := decodeV1(u)
		if err != nil || c.Spec.Group != group {
			continue
		}
		a := c.Status.AcceptedNames
		n.Add(a.Plural, a.Singular, a.Kind, a.ListKind, a.ShortNames...)
	}
	return n
}

// SetStatus fills the template's status as an established CRD:
// acceptedNames = spec.names, storedVersions (adding the storage version,
// keeping old ones), conditions NamesAccepted=True (NoConflicts) and
// Established=True (InitialNamesAccepted), and, for protected groups
// (*.k8s.io, *.kubernetes.io), KubernetesAPIApprovalPolicyConformant as the
// host's API approval controller sets it. A condition's lastTransitionTime is
// kept when its status does not change, else set to now. The template is
// defaulted (as Default) first.
//
// If a requested name conflicts with taken (names equal to the currently
// accepted ones never conflict, as on the host), the conflicting accepted
// names keep their previous values, NamesAccepted=False with the naming
// controller's reason (PluralConflict, SingularConflict, ShortNamesConflict,
// KindConflict, ListKindConflict) and message (`"x" is already in use`), and
// Established=False (NotAccepted, "not all names are accepted"); the
// caller must not serve it. (The host keeps an already-established CRD
// Established and serving its old accepted names; the fleet does not.)
//
// A template that cannot be decoded is left unchanged.
func SetStatus(crd *unstructured.Unstructured, taken Names, now metav1.Time) {
	c, err := decodeV1(crd)
	if err != nil {
		return
	}
	allResources, allKinds := taken.resources(), taken.kinds()

	namesAccepted := apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.NamesAccepted,
		Status:  apiextensionsv1.ConditionTrue,
		Reason:  "NoConflicts",
		Message: "no conflicts found",
	}
	conflict := func(reason string, err error) {
		namesAccepted.Status = apiextensionsv1.ConditionFalse
		namesAccepted.Reason = reason
		namesAccepted.Message = err.Error()
	}
	requested, accepted := c.Spec.Names, c.Status.AcceptedNames
	newNames := accepted
	if err := freshOrAccepted(requested.Plural, accepted.Plural, allResources); err != nil {
		conflict("PluralConflict", err)
	} else {
		newNames.Plural = requested.Plural
	}
	if err := freshOrAccepted(requested.Singular, accepted.Singular, allResources); err != nil {
		conflict("SingularConflict", err)
	} else {
		newNames.Singular = requested.Singular
	}
	if !reflect.DeepEqual(requested.ShortNames, accepted.ShortNames) {
		var errs []error
		mine := sets.New(accepted.ShortNames...)
		for _, s := range requested.ShortNames {
			if mine.Has(s) {
				continue
			}
			if err := freshOrAccepted(s, "", allResources); err != nil {
				errs = append(errs, err)
			}
		}
		if err := utilerrors.NewAggregate(errs); err != nil {
			conflict("ShortNamesConflict", err)
		} else {
			newNames.ShortNames = requested.ShortNames
		}
	}
	if err := freshOrAccepted(requested.Kind, accepted.Kind, allKinds); err != nil {
		conflict("KindConflict", err)
	} else {
		newNames.Kind = requested.Kind
	}
	if err := freshOrAccepted(requested.ListKind, accepted.ListKind, allKinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		newNames.ListKind = requested.ListKind
	}
	newNames.Categories = requested.Categories
	c.Status.AcceptedNames = newNames

	established := apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.Established,
		Status:  apiextensionsv1.ConditionTrue,
		Reason:  "InitialNamesAccepted",
		Message: "the initial names have been accepted",
	}
	if namesAccepted.Status != apiextensionsv1.ConditionTrue {
		established.Status = apiextensionsv1.ConditionFalse
		established.Reason = "NotAccepted"
		established.Message = "not all names are accepted"
	}
	setCondition(c, namesAccepted, now)
	setCondition(c, established, now)
	if cond := apiApprovalCondition(c); cond != nil {
		setCondition(c, *cond, now)
	} else {
		apihelpers.RemoveCRDCondition(c, apiextensionsv1.KubernetesAPIApprovalPolicyConformant)
	}

	for _, v := range c.Spec.Versions {
		if v.Storage {
			if !apihelpers.IsStoredVersion(c, v.Name) {
				c.Status.StoredVersions = append(c.Status.StoredVersions, v.Name)
			}
			break
		}
	}

	specValue, err := toUnstructuredValue(c.Spec)
	if err != nil {
		return
	}
	statusValue, err := toUnstructuredValue(c.Status)
	if err != nil {
		return
	}
	crd.Object["spec"] = specValue
	crd.Object["status"] = statusValue
}

func freshOrAccepted(requested, accepted string, used sets.Set[string]) error {
	if requested == accepted || !used.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// setCondition is apihelpers.SetCRDCondition with a given time.
func setCondition(c *apiextensionsv1.CustomResourceDefinition, cond apiextensionsv1.CustomResourceDefinitionCondition, now metav1.Time) {
	cond.LastTransitionTime = now
	existing := apihelpers.FindCRDCondition(c, cond.Type)
	if existing == nil {
		c.Status.Conditions = append(c.Status.Conditions, cond)
		return
	}
	if existing.Status != cond.Status || existing.LastTransitionTime.IsZero() {
		existing.LastTransitionTime = now
	}
	existing.Status = cond.Status
	existing.Reason = cond.Reason
	existing.Message = cond.Message
}

// apiApprovalCondition is the KubernetesAPIApprovalPolicyConformant
// condition the host's API approval controller sets (nil for groups that are
// not protected).
func apiApprovalCondition(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionCondition {
	if !apihelpers.IsProtectedCommunityGroup(c.Spec.Group) {
		return nil
	}
	state, reason := apihelpers.GetAPIApprovalState(c.Annotations)
	cond := &apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.KubernetesAPIApprovalPolicyConformant,
		Message: reason,
	}
	switch state {
	case apihelpers.APIApprovalInvalid:
		cond.Status, cond.Reason = apiextensionsv1.ConditionFalse, "InvalidAnnotation"
	case apihelpers.APIApprovalMissing:
		cond.Status, cond.Reason = apiextensionsv1.ConditionFalse, "MissingAnnotation"
	case apihelpers.APIApproved:
		cond.Status, cond.Reason = apiextensionsv1.ConditionTrue, "ApprovedAnnotation"
	case apihelpers.APIApprovalBypassed:
		cond.Status, cond.Reason = apiextensionsv1.ConditionFalse, "UnapprovedAnnotation"
	default:
		cond.Status, cond.Reason = apiextensionsv1.ConditionUnknown, "UnknownAnnotation"
	}
	return cond
}

// Established reports whether the template's status has Established=True
// (as SetStatus writes it).
func Established(crd *unstructured.Unstructured) bool {
	c, err := decodeV1(crd)
	if err != nil {
		return false
	}
	return apihelpers.IsCRDConditionTrue(c, apiextensionsv1.Established)
}
