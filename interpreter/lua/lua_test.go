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

package lua

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func run(t *testing.T, src string, args ...any) ([]any, error) {
	t.Helper()
	s, err := Compile("test", src, DefaultLimits, map[string]Helper{
		"double": func(args ...any) (any, error) { return args[0].(int64) * 2, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	_, out, err := s.Call(context.Background(), []string{"F"}, 1, args...)
	return out, err
}

func TestValuesRoundTrip(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"replicas": int64(3), "ratio": 0.5, "on": true,
		"list": []any{"a", int64(2), map[string]any{"x": "y"}}, "empty": map[string]any{},
		"args": []any{}, "nested": []any{[]any{}}, "holes": []any{int64(1), nil, int64(3)}}}
	out, err := run(t, "function F(o) return o end", obj)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out[0], obj) {
		t.Errorf("round trip: %#v, want %#v", out[0], obj)
	}
	out, err = run(t, "function F(o) o.spec.replicas = o.spec.replicas + kube.double(2); return o.spec end", obj)
	if err != nil || out[0].(map[string]any)["replicas"] != int64(7) {
		t.Errorf("helper and arithmetic: %v %v", out, err)
	}
}

// TestEmptyTable: a {} the script makes is an empty object, also in a call given no list
// (the list metatable was once nil then, and a plain table's nil metatable matched it).
func TestEmptyTable(t *testing.T) {
	out, err := run(t, "function F(o) local status = {} return status end", map[string]any{"a": "b"})
	if err != nil || !reflect.DeepEqual(out[0], map[string]any{}) {
		t.Errorf("{}: %#v %v, want an empty object", out, err)
	}
}

// TestClock: os.time and os.date, which Karmada's scripts use to compare timestamps.
func TestClock(t *testing.T) {
	out, err := run(t, `function F() return os.date("!%Y-%m-%dT%H:%M:%SZ", os.time({year = 2026, month = 11, day = 30, hour = 12})) end`)
	if err != nil || !strings.HasPrefix(out[0].(string), "2026-11-30T") {
		t.Errorf("os.date of os.time: %v %v, want 2026-11-30T...", out, err)
	}
}

// TestRequireKube: Karmada's scripts load the helpers with require("kube").
func TestRequireKube(t *testing.T) {
	out, err := run(t, "local kube = require('kube')\nfunction F() return kube.double(21) end")
	if err != nil || out[0] != int64(42) {
		t.Errorf("require('kube'): %v %v, want 42", out, err)
	}
}

func TestSandbox(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"no os but its clock", "function F() return os.getenv('HOME') end", "attempt to call a non-function object"},
		{"no os.execute", "function F() return os.execute('true') end", "attempt to call a non-function object"},
		{"no io", "function F() return io.open('/etc/passwd') end", "attempt to index a non-table object(nil)"},
		{"no require but kube", "function F() return require('os') end", `the only library scripts may load is "kube", not "os"`},
		{"no loading", "function F() return loadstring('return 1') end", "attempt to call a non-function object"},
		{"no dofile", "function F() return dofile('/etc/passwd') end", "attempt to call a non-function object"},
		{"no debug", "function F() return debug.getinfo(1) end", "attempt to index a non-table object(nil)"},
		{"a long string.rep", "function F() return string.rep('x', 1e9) end", "longer than"},
		{"a wide format", "function F() return string.format('%99999999d', 1) end", "too large"},
		{"deep recursion", "function F() return F() + 1 end", "stack overflow"},
		{"an error", "function F() error('no replicas here') end", "no replicas here"},
		{"no such function", "function G() end", "defines no function F"},
		{"a table in itself", "function F() local t = {} t.x = t return t end", "nested more than 64 deep"},
		{"a quadratic gsub", "function F() return string.gsub(string.rep('a', 200000), 'a', 'b') end", "longer than 16384"},
		{"a backtracking pattern", "function F() return string.find(string.rep('a', 3000), '.-.-.-.-b') end", "could backtrack"},
		{"a nested repetition", "function F() local s = ('a'):rep(12000) .. 'c' return s:match('(a*)*b') end", "more than 2000000"},
		{"optional items", "function F() return string.match(('a'):rep(30), ('a?'):rep(30) .. ('a'):rep(30)) end", "could backtrack"},
		{"a large concat", "function F() local t = {} for i = 1, 3 do t[i] = string.rep('x', 1000000) end return table.concat(t) end", "table.concat: the result would be longer"},
		{"a large format", "function F() local s = string.rep('x', 600000) return string.format('%s%s', s, s) end", "string.format: the result would be longer"},
		{"a large gsub by function", "function F() return string.gsub(string.rep('a', 16000), 'a', function(c) return string.rep('x', 1000) end) end", "replacements are longer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	start := time.Now()
	_, err := run(t, "function F() while true do end end")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("a loop forever: %v, want %v", err, ErrTimeout)
	}
	if d := time.Since(start); d > DefaultLimits.Timeout+time.Second {
		t.Errorf("stopped after %v", d)
	}
	_, err = run(t, "function F() local s = 'xxxxxxxxxxxxxxxx' while true do s = s .. s end end")
	if !errors.Is(err, ErrMemory) && !errors.Is(err, ErrTimeout) {
		t.Errorf("a string doubling: %v, want %v", err, ErrMemory)
	}
	_, err = run(t, "function F() local t = {} local i = 0 while true do i = i + 1 t[i] = {i, i, i} end end")
	if !errors.Is(err, ErrMemory) && !errors.Is(err, ErrTimeout) {
		t.Errorf("a growing table: %v", err)
	}
}

// TestPatternBounds: a pattern call that could backtrack long is refused at once, well
// within the deadline; the patterns scripts use on the strings they read run.
func TestPatternBounds(t *testing.T) {
	for _, src := range []string{
		"function F() local s = ('a'):rep(12000) .. 'c' return s:match('(a*)*b') end",
		"function F() local s = ('a'):rep(16000) .. 'c' return s:match('(a*)*b') end",
		"function F() return string.find(('a'):rep(16000), 'a*b') end",
		"function F() return string.gsub(('a'):rep(16000), 'a-b', '') end",
	} {
		start := time.Now()
		if _, err := run(t, src); err == nil || !strings.Contains(err.Error(), "could backtrack") {
			t.Errorf("%s: %v, want it refused", src, err)
		}
		if d := time.Since(start); d > DefaultLimits.Timeout/5 {
			t.Errorf("%s: refused after %v", src, d)
		}
	}
	for _, src := range []string{
		"function F() return string.match('registry.example.com/team/nginx:1.27', '(.*)/(.*):(.*)') end",
		"function F() return string.match(('x'):rep(16000) .. '/y', '^(.-)/') end",
		"function F() return string.gsub(('word '):rep(200), '%s+', '') end",
		"function F() return string.find(('a'):rep(16000), 'needle', 1, true) end",
		"function F() return string.find(('a'):rep(16000), '[a-z%-]b') end",
	} {
		if _, err := run(t, src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

func TestPatternShape(t *testing.T) {
	for _, c := range []struct {
		pattern       string
		anchored      bool
		repeated, opt int
	}{
		{"abc", false, 0, 0},
		{"^(.-)/(.*)$", true, 2, 0},
		{"[a-z-]+", false, 1, 0},
		{"[]*]", false, 0, 0},
		{"[^]]-x", false, 1, 0},
		{"%d+%.?%d*", false, 2, 1},
		{"%b()*", false, 0, 0},
		{"%f[%w]%w+", false, 1, 0},
		{"(a)%1*", false, 0, 0},
		{"a?b?c?", false, 0, 3},
		{"%%*", false, 1, 0},
	} {
		anchored, k, q := patternShape(c.pattern)
		if anchored != c.anchored || k != c.repeated || q != c.opt {
			t.Errorf("patternShape(%q) = %v, %d, %d; want %v, %d, %d", c.pattern, anchored, k, q, c.anchored, c.repeated, c.opt)
		}
	}
	if got := patternSteps("a*b", 3000); got < 4e6 || got > 5e6 {
		t.Errorf("patternSteps(a*b, 3000) = %g, want C(3002, 2), about 4.5 million", got)
	}
}

// A script that lists an object's keys sees them in one order every call.
func TestKeyOrder(t *testing.T) {
	obj := map[string]any{}
	for _, k := range strings.Fields("q w e r t y u i o p a s d f g h j k l z x c v b n m") {
		obj[k] = k
	}
	first, err := run(t, "function F(o) local ks = {} for k in pairs(o) do ks[#ks+1] = k end return table.concat(ks, ',') end", obj)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if again, _ := run(t, "function F(o) local ks = {} for k in pairs(o) do ks[#ks+1] = k end return table.concat(ks, ',') end", obj); !reflect.DeepEqual(again, first) {
			t.Fatalf("pairs order %v, then %v", first, again)
		}
	}
	// gsub's table and function replacements work within the bound.
	out, err := run(t, "function F() return (string.gsub('a-b', '%w', {a = 'x'})) .. (string.gsub('ab', '%w', function(c) return c .. c end)) end")
	if err != nil || out[0] != "x-baabb" {
		t.Errorf("gsub replacements: %v %v", out, err)
	}
}
