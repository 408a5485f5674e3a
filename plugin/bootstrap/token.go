/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package bootstrap is pull mode's bootstrap on the plugin's side: fed's bootstrap tokens in
// the host (kubeadm's kind, k8s.io/cluster-bootstrap), the host's cluster-info that a member
// discovers it with (the CA pinned by its hash, the bootstrapsigner's JWS signature checked
// with the token), and the agent's client certificate asked for with the token.
package bootstrap

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/kubernetes"
	bootstrapapi "k8s.io/cluster-bootstrap/token/api"
	bootstraputil "k8s.io/cluster-bootstrap/token/util"
	bootstrapsecretutil "k8s.io/cluster-bootstrap/util/secrets"
	bootstraptokens "k8s.io/cluster-bootstrap/util/tokens"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

const (
	// labelManagedBy marks fed's bootstrap tokens, which token list shows and token
	// delete deletes.
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "kubectl-fed"

	// DefaultDescription is what a token is described as unless told otherwise.
	DefaultDescription = "fed: registers a member cluster in pull mode (kubectl fed register)"
)

// Token is a bootstrap token: ID.SECRET, the ID public (the Secret's name), the secret
// not.
type Token struct {
	ID, Secret string
}

func (t Token) String() string { return bootstraputil.TokenFromIDAndSecret(t.ID, t.Secret) }

// NewToken makes a random token.
func NewToken() (Token, error) {
	s, err := bootstraputil.GenerateBootstrapToken()
	if err != nil {
		return Token{}, err
	}
	return ParseToken(s)
}

// ParseToken parses ID.SECRET.
func ParseToken(s string) (Token, error) {
	id, secret, err := bootstraptokens.ParseToken(s)
	if err != nil {
		return Token{}, fmt.Errorf("invalid bootstrap token: it must be of the form [a-z0-9]{6}.[a-z0-9]{16}")
	}
	return Token{ID: id, Secret: secret}, nil
}

// ParseTokenID takes a token's ID, or a whole token (whose ID it returns).
func ParseTokenID(s string) (string, error) {
	if bootstraputil.IsValidBootstrapTokenID(s) {
		return s, nil
	}
	t, err := ParseToken(s)
	if err != nil {
		return "", fmt.Errorf("%q is neither a bootstrap token ID ([a-z0-9]{6}) nor a bootstrap token", s)
	}
	return t.ID, nil
}

// NewTokenSecret is the kube-system Secret of a fed bootstrap token, as kubeadm makes
// them: it authenticates (as system:bootstrap:ID, in the groups system:bootstrappers and
// RegisterGroup) and signs cluster-info, until now+ttl (never when ttl is 0).
func NewTokenSecret(t Token, description string, ttl time.Duration, now time.Time) *corev1.Secret {
	data := map[string][]byte{
		bootstrapapi.BootstrapTokenIDKey:               []byte(t.ID),
		bootstrapapi.BootstrapTokenSecretKey:           []byte(t.Secret),
		bootstrapapi.BootstrapTokenUsageAuthentication: []byte("true"),
		bootstrapapi.BootstrapTokenUsageSigningKey:     []byte("true"),
		bootstrapapi.BootstrapTokenExtraGroupsKey:      []byte(clusterv1alpha1.RegisterGroup),
	}
	if description != "" {
		data[bootstrapapi.BootstrapTokenDescriptionKey] = []byte(description)
	}
	if ttl > 0 {
		data[bootstrapapi.BootstrapTokenExpirationKey] = []byte(now.Add(ttl).UTC().Format(time.RFC3339))
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      bootstraputil.BootstrapTokenSecretName(t.ID),
			Namespace: metav1.NamespaceSystem,
			Labels:    map[string]string{labelManagedBy: managedBy},
		},
		Type: bootstrapapi.SecretTypeBootstrapToken,
		Data: data,
	}
}

// CreateToken stores a new fed bootstrap token in the host.
func CreateToken(ctx context.Context, client kubernetes.Interface, description string, ttl time.Duration) (Token, error) {
	t, err := NewToken()
	if err != nil {
		return Token{}, err
	}
	s := NewTokenSecret(t, description, ttl, time.Now())
	if _, err := client.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		return Token{}, fmt.Errorf("creating the bootstrap token's Secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return t, nil
}

// ListTokens returns the Secrets of fed's bootstrap tokens, by name.
func ListTokens(ctx context.Context, client kubernetes.Interface) ([]corev1.Secret, error) {
	list, err := client.CoreV1().Secrets(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{labelManagedBy: managedBy}).String(),
		FieldSelector: fields.OneTermEqualSelector("type", string(bootstrapapi.SecretTypeBootstrapToken)).String(),
	})
	if err != nil {
		return nil, err
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items, nil
}

// DeleteToken deletes fed's bootstrap token of that ID; a token that is not fed's (one of
// kubeadm's, say) is refused.
func DeleteToken(ctx context.Context, client kubernetes.Interface, id string) error {
	secrets := client.CoreV1().Secrets(metav1.NamespaceSystem)
	name := bootstraputil.BootstrapTokenSecretName(id)
	s, err := secrets.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("bootstrap token %q not found", id)
	}
	if err != nil {
		return err
	}
	if s.Type != bootstrapapi.SecretTypeBootstrapToken || s.Labels[labelManagedBy] != managedBy {
		return fmt.Errorf("bootstrap token %q is not fed's (its Secret %s/%s lacks the label %s=%s); delete it with the tool that made it",
			id, s.Namespace, s.Name, labelManagedBy, managedBy)
	}
	return secrets.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
}

// TokenRow is a token as token list shows it.
type TokenRow struct {
	ID, TTL, Expires, Description string
}

// Row describes a bootstrap token's Secret at now: its ID, the time left (kubectl's
// durations; <forever>, or <invalid> once expired), when it expires (RFC 3339, <never>) and
// its description.
func Row(s *corev1.Secret, now time.Time) TokenRow {
	r := TokenRow{
		ID:          bootstrapsecretutil.GetData(s, bootstrapapi.BootstrapTokenIDKey),
		Description: bootstrapsecretutil.GetData(s, bootstrapapi.BootstrapTokenDescriptionKey),
		TTL:         "<forever>",
		Expires:     "<never>",
	}
	if r.ID == "" {
		r.ID, _ = bootstrapsecretutil.ParseName(s.Name)
	}
	if exp := bootstrapsecretutil.GetData(s, bootstrapapi.BootstrapTokenExpirationKey); exp != "" {
		r.Expires = exp
		left, expired := bootstrapsecretutil.GetExpiration(s, now)
		switch {
		case expired:
			r.TTL = "<invalid>"
		default:
			r.TTL = duration.HumanDuration(left)
		}
	}
	return r
}
