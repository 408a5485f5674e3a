package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestMutatedInputRefused sends every fed kind, and templates through the fleet API, with
// random mutations of a valid object (a value of the wrong type, an unknown field, a 2 MiB
// string, 200 levels of nesting) as updates of the stored object. Each must be refused with
// a client error (4xx) that says why, leaving the stored object as it was, or, where the
// field takes any JSON, stored as sent; fed-apiserver must never answer 5xx nor panic.
// SEED fixes the mutations (printed otherwise).
func TestMutatedInputRefused(t *testing.T) {
	seed := time.Now().UnixNano() % 1_000_000
	if s := os.Getenv("SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (replay with SEED=%d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	logStart := fedLogMark()

	ns := testNamespace(t, theLab.Host.Kubeconfig)
	suffix := ns[len("e2e-"):]
	cfg, err := theLab.Host.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	fedAPI, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fleetCfg, err := clientConfigFor(theLab.FleetKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	fleetAPI, err := dynamic.NewForConfig(fleetCfg)
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		obj    *unstructured.Unstructured
		client dynamic.ResourceInterface
	}
	var targets []target
	for _, obj := range fixtures(t) {
		kind := fedKinds[obj.GetKind()]
		gvr := schema.FromAPIVersionAndKind(obj.GetAPIVersion(), obj.GetKind()).GroupVersion().WithResource(kind.resource)
		var client dynamic.ResourceInterface = fedAPI.Resource(gvr)
		if kind.namespaced {
			obj.SetNamespace(ns)
			client = fedAPI.Resource(gvr).Namespace(ns)
		} else {
			obj.SetName(obj.GetName() + "-" + suffix)
		}
		targets = append(targets, target{obj, client})
	}
	for k := range soakKinds {
		if soakKinds[k].gvr == soakWidgets {
			continue // the soak's CRD is there only while TestSoak runs
		}
		targets = append(targets, target{soakTemplate(k, ns, "mutated", 1, 0), fleetAPI.Resource(soakKinds[k].gvr).Namespace(ns)})
	}
	ctx := context.Background()
	strict := metav1.UpdateOptions{FieldValidation: metav1.FieldValidationStrict}
	refused := 0
	for _, tg := range targets {
		kind := tg.obj.GetKind()
		stored, err := tg.client.Create(ctx, tg.obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating the valid %s: %v", kind, err)
		}
		if stored.GetNamespace() == "" { // the namespaced ones go with the namespace
			t.Cleanup(func() { _ = tg.client.Delete(context.Background(), stored.GetName(), metav1.DeleteOptions{}) })
		}
		for i := 0; i < 8; i++ { // two of each mutation
			// Its controller may have written its status since (a new resourceVersion).
			if stored, err = tg.client.Get(ctx, stored.GetName(), metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			sent := stored.DeepCopy()
			what, path, value := mutate(rng, sent.Object, i%4)
			if path == nil {
				continue
			}
			desc := fmt.Sprintf("%s with %s at %s", kind, what, strings.Join(path, "."))
			got, err := tg.client.Update(ctx, sent, strict)
			var status apierrors.APIStatus
			switch {
			case err == nil:
				// Accepted: the field takes any JSON. It must be stored as sent.
				if v, ok := getPath(got.Object, path); !ok || !soakContains(v, value) {
					t.Errorf("%s: accepted, and stored as %.200v", desc, v)
				}
				stored = got
			case errors.As(err, &status) && status.Status().Code >= 400 && status.Status().Code < 500 && status.Status().Message != "":
				refused++
				now, gerr := tg.client.Get(ctx, stored.GetName(), metav1.GetOptions{})
				if gerr != nil || !equality.Semantic.DeepEqual(now.Object["spec"], stored.Object["spec"]) ||
					!equality.Semantic.DeepEqual(now.GetLabels(), stored.GetLabels()) {
					t.Errorf("%s: refused (%v), and the stored object changed: %v", desc, status.Status().Reason, gerr)
				}
			default:
				msg := err.Error()
				if len(msg) > 300 {
					msg = msg[:300]
				}
				t.Errorf("%s: want a client error that says why, got %s", desc, msg)
			}
		}
	}
	t.Logf("%d mutations refused", refused)
	if !strings.Contains(strings.Join(theLab.RunningProcesses(), " "), "fed-apiserver") {
		t.Fatal("fed-apiserver is no longer running")
	}
	noPanicSince(t, logStart)
}

// mutate changes obj at a random place under spec, by kind: 0 a value of another type, 1 an
// unknown field, 2 a string of 2 MiB, 3 200 levels of nesting. It returns what it did,
// where, and the value put there (nil path when obj has no spec).
func mutate(rng *rand.Rand, obj map[string]any, kind int) (string, []string, any) {
	var paths [][]string
	collectPaths(obj["spec"], []string{"spec"}, &paths)
	if len(paths) == 0 {
		return "", nil, nil
	}
	path := paths[rng.Intn(len(paths))]
	old, _ := getPath(obj, path)
	var what string
	var value any
	switch kind {
	case 0:
		what = "a value of another type"
		switch old.(type) {
		case string:
			value = int64(12345)
		case int64, float64:
			value = "not-a-number"
		case bool:
			value = "yes"
		case map[string]any:
			value = "a string"
		default:
			value = map[string]any{"x": int64(1)}
		}
	case 1:
		what = "an unknown field"
		if m, ok := old.(map[string]any); ok {
			m["unknownFieldOfTheTest"] = "x"
			return what, append(path, "unknownFieldOfTheTest"), "x"
		}
		path = append(path[:len(path)-1:len(path)-1], "unknownFieldOfTheTest")
		value = "x"
	case 2:
		what, value = "a string of 2 MiB", strings.Repeat("x", 2<<20)
	default:
		what = "200 levels of nesting"
		var deep any = "bottom"
		for range 200 {
			deep = map[string]any{"a": deep}
		}
		value = deep
	}
	if !setPath(obj, path, value) {
		return "", nil, nil
	}
	return what, path, value
}

// collectPaths lists the paths of every value under v (maps' keys, lists' indexes).
func collectPaths(v any, path []string, out *[][]string) {
	*out = append(*out, path)
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			collectPaths(e, append(path[:len(path):len(path)], k), out)
		}
	case []any:
		for i, e := range x {
			collectPaths(e, append(path[:len(path):len(path)], strconv.Itoa(i)), out)
		}
	}
}

func getPath(v any, path []string) (any, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func setPath(obj map[string]any, path []string, value any) bool {
	parent, ok := getPath(obj, path[:len(path)-1])
	if !ok {
		return false
	}
	last := path[len(path)-1]
	switch x := parent.(type) {
	case map[string]any:
		x[last] = value
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i >= len(x) {
			return false
		}
		x[i] = value
	default:
		return false
	}
	return true
}
