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

// Package lua runs the scripts of ResourceInterpreterCustomizations in a sandbox: Lua 5.1
// (gopher-lua) with the base, table, string and math libraries only, without anything
// that reaches files, the process or other code (no io, os, package, require, debug,
// dofile, loadfile, load, loadstring, print), each call with its own state and bounds:
// a deadline, the depth of its call stack and the size of its value stack, the size of
// a string it makes, and the heap it may grow.
package lua

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Limits bound one call of a script.
type Limits struct {
	// Timeout is how long a call may run.
	Timeout time.Duration
	// HeapGrowth is how much the process's heap may grow while a call runs before the call
	// is stopped.
	HeapGrowth uint64
	// MaxString is the longest string string.rep and string.format may make.
	MaxString int
}

// DefaultLimits are the bounds fed runs scripts with.
var DefaultLimits = Limits{Timeout: 500 * time.Millisecond, HeapGrowth: 256 << 20, MaxString: 1 << 20}

// Helper is a Go function scripts call as kube.<name>(...): it gets the arguments and
// returns one result, as Go values as JSON decodes them.
type Helper func(args ...any) (any, error)

// Script is a compiled script.
type Script struct {
	name    string
	proto   *lua.FunctionProto
	limits  Limits
	helpers map[string]Helper
}

// Compile parses and compiles src; name says where it comes from in errors; helpers are
// the functions of the script's table kube.
func Compile(name, src string, limits Limits, helpers map[string]Helper) (*Script, error) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Script{name: name, proto: proto, limits: limits, helpers: helpers}, nil
}

// running lets one script run at a time, so that the heap a call grows is its own (the
// rest of the process goes on allocating, which a call may be blamed for, rarely).
var running sync.Mutex

// ErrTimeout and ErrMemory say why a call was stopped.
var (
	ErrTimeout = errors.New("the script ran out of time")
	ErrMemory  = errors.New("the script used too much memory")
)

// Call runs the script, then the first of the functions it names that the script
// defines, with args (Go values as JSON decodes them: maps, slices, strings, float64 or
// int64 numbers, booleans, nil). It returns the function called and its nret results,
// converted back the same way.
func (s *Script) Call(ctx context.Context, functions []string, nret int, args ...any) (string, []any, error) {
	var out []any
	name, err := s.run(ctx, functions, func(L *lua.LState, name string, fn *lua.LFunction) error {
		if fn == nil {
			return fmt.Errorf("the script defines no function %s", strings.Join(functions, " or "))
		}
		values := make([]lua.LValue, len(args))
		for i, a := range args {
			values[i] = toLua(L, a)
		}
		if err := L.CallByParam(lua.P{Fn: fn, NRet: nret, Protect: true}, values...); err != nil {
			return err
		}
		out = make([]any, nret)
		for i := range nret {
			var err error
			if out[i], err = fromLua(L, L.Get(-nret+i)); err != nil {
				return fmt.Errorf("%s returned %w", name, err)
			}
		}
		L.Pop(nret)
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return name, out, nil
}

// Defines runs the script (its top level only) and says which of functions it defines,
// the first found; "" when none.
func (s *Script) Defines(ctx context.Context, functions []string) (string, error) {
	return s.run(ctx, functions, func(*lua.LState, string, *lua.LFunction) error { return nil })
}

// run runs the script's top level in a state of its own, within the script's limits and
// one at a time, then calls then with the first of functions the script defines (name "" and
// fn nil when none). An error of a call the limits stopped is ErrTimeout or ErrMemory.
func (s *Script) run(ctx context.Context, functions []string, then func(L *lua.LState, name string, fn *lua.LFunction) error) (string, error) {
	running.Lock()
	defer running.Unlock()
	ctx, cancel := context.WithTimeoutCause(ctx, s.limits.Timeout, ErrTimeout)
	defer cancel()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	done := make(chan struct{})
	defer close(done)
	go watchHeap(s.limits.HeapGrowth, done, func() { stop(ErrMemory) })

	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 200, RegistrySize: 1024, RegistryMaxSize: 64 * 1024, MinimizeStackMemory: true})
	defer L.Close()
	s.open(L)
	L.SetContext(ctx)
	stopped := func(err error) error {
		if cause := context.Cause(ctx); err != nil && cause != nil {
			return cause
		}
		return err
	}
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return "", stopped(err)
	}
	for _, f := range functions {
		if fn, ok := L.GetGlobal(f).(*lua.LFunction); ok {
			return f, stopped(then(L, f, fn))
		}
	}
	return "", stopped(then(L, "", nil))
}

// open gives a state the libraries a script may use, and nothing else.
func (s *Script) open(L *lua.LState) {
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	// Of the os library, the clock only (os.time and os.date), as Karmada's scripts have it:
	// no files, processes or environment.
	L.Push(L.NewFunction(lua.OpenOs))
	L.Push(lua.LString(lua.OsLibName))
	L.Call(1, 0)
	full, safe := L.GetGlobal(lua.OsLibName).(*lua.LTable), L.CreateTable(0, 2)
	for _, name := range []string{"time", "date"} {
		safe.RawSetString(name, full.RawGetString(name))
	}
	L.SetGlobal(lua.OsLibName, safe)
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "require", "module", "print", "collectgarbage",
		"getfenv", "setfenv", "newproxy", "_printregs"} {
		L.SetGlobal(name, lua.LNil)
	}
	// The string and table functions run in Go, where the deadline is not checked: their
	// inputs are bounded so that no call of them takes long or makes a large string.
	max := s.limits.MaxString
	str := L.GetGlobal(lua.StringLibName).(*lua.LTable)
	guard(L, str, "rep", func(L *lua.LState) {
		if n := L.OptInt(2, 0); n > 0 && float64(len(L.CheckString(1)))*float64(n) > float64(max) {
			L.RaiseError("string.rep: the result would be longer than %d bytes", max)
		}
	})
	guard(L, str, "format", func(L *lua.LState) {
		for _, m := range widths.FindAllStringSubmatch(L.CheckString(1), -1) {
			for _, w := range m[1:] {
				if len(w) > 4 {
					L.RaiseError("string.format: a width or precision of %s is too large", w)
				}
			}
		}
		if n := argsLength(L, 1); n > max {
			L.RaiseError("string.format: the result would be longer than %d bytes", max)
		}
	})
	for _, name := range []string{"find", "match", "gmatch", "gsub"} {
		guard(L, str, name, func(L *lua.LState) {
			if n := len(L.CheckString(1)); n > MaxPatternSubject {
				L.RaiseError("string.%s: a subject of %d bytes is longer than %d", name, n, MaxPatternSubject)
			}
			if name == "find" && lua.LVAsBool(L.Get(4)) {
				return // a plain search: no pattern
			}
			subject, pattern := L.CheckString(1), L.CheckString(2)
			if steps := patternSteps(pattern, len(subject)); steps > MaxPatternSteps {
				L.RaiseError("string.%s: the pattern %q over a subject of %d bytes could backtrack %.3g times, more than %d: "+
					"use a shorter subject, anchor the pattern with ^, or fewer of *, +, - and ?", name, pattern, len(subject), steps, MaxPatternSteps)
			}
			if name != "gsub" {
				return
			}
			switch repl := L.Get(3).(type) {
			case lua.LString:
				if float64(len(L.CheckString(1)))*float64(len(repl)+1) > float64(max) {
					L.RaiseError("string.gsub: the result could be longer than %d bytes", max)
				}
			case *lua.LTable, *lua.LFunction:
				L.Replace(3, boundedReplacement(L, repl, max))
			}
		})
	}
	tab := L.GetGlobal(lua.TabLibName).(*lua.LTable)
	guard(L, tab, "concat", func(L *lua.LState) {
		n := len(L.OptString(2, ""))
		L.CheckTable(1).ForEach(func(_, v lua.LValue) {
			if s, ok := v.(lua.LString); ok {
				n += len(s) + len(L.OptString(2, ""))
			}
		})
		if n > max {
			L.RaiseError("table.concat: the result would be longer than %d bytes", max)
		}
	})
	kube := L.CreateTable(0, len(s.helpers))
	for name, h := range s.helpers {
		kube.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			args := make([]any, L.GetTop())
			for i := range args {
				var err error
				if args[i], err = fromLua(L, L.Get(i+1)); err != nil {
					L.RaiseError("kube.%s: %v", name, err)
				}
			}
			out, err := h(args...)
			if err != nil {
				L.RaiseError("kube.%s: %v", name, err)
			}
			L.Push(toLua(L, out))
			return 1
		}))
	}
	L.SetGlobal("kube", kube)
	// Scripts written for Karmada load the library with require("kube"); it is the one
	// module there is.
	L.SetGlobal("require", L.NewFunction(func(L *lua.LState) int {
		if name := L.CheckString(1); name != "kube" {
			L.RaiseError("require: the only library scripts may load is \"kube\", not %q", name)
		}
		L.Push(kube)
		return 1
	}))
}

// widths finds the width and precision of each directive of a format.
var widths = regexp.MustCompile(`%[-+ #0]*([0-9]*)(?:\.([0-9]*))?[a-zA-Z%]`)

// MaxPatternSubject and MaxPatternSteps bound the string library's pattern functions
// (find, match, gmatch, gsub), which run in Go, where the deadline is not checked, and
// backtrack: the longest subject, and the most ways a call may try to match (patternSteps),
// which keeps a call within about a tenth of a second on the machines fed was measured on
// (a*b over 3,000 bytes, about 4.5 million ways, took 0.29 s there).
const (
	MaxPatternSubject = 16 << 10
	MaxPatternSteps   = 2_000_000
)

// patternSteps bounds the ways Lua's matcher may try pattern over a subject of n bytes,
// when nothing matches: at each starting position (one when the pattern is anchored with
// ^), each way its k repetition items (*, +, -) can share the rest of the subject, C(n+k, k),
// and its q optional items (?) be there or not, 2^q; over every start, C(n+k+1, k+1) × 2^q.
func patternSteps(pattern string, n int) float64 {
	anchored, k, q := patternShape(pattern)
	if anchored {
		return binomial(n+k, k) * math.Pow(2, float64(q))
	}
	return binomial(n+k+1, k+1) * math.Pow(2, float64(q))
}

// binomial is C(n, k), as a float64 (it may be huge).
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// patternShape reads a Lua pattern's items: whether it is anchored, and how many of its
// single-character classes (a character, ., %x, [set]) are repeated (*, +, -) or optional
// (?). Captures, %b, %f and back-references match in one way.
func patternShape(pattern string) (anchored bool, repeated, optional int) {
	i := 0
	if strings.HasPrefix(pattern, "^") {
		anchored, i = true, 1
	}
	for i < len(pattern) {
		class := true
		switch c := pattern[i]; {
		case c == '(' || c == ')':
			class = false
			i++
		case c == '%' && i+1 < len(pattern):
			switch d := pattern[i+1]; {
			case d == 'b':
				class, i = false, i+4
			case d == 'f':
				class, i = false, setEnd(pattern, i+2)
			case d >= '0' && d <= '9':
				class, i = false, i+2
			default:
				i += 2
			}
		case c == '[':
			i = setEnd(pattern, i)
		default:
			i++
		}
		if !class || i >= len(pattern) {
			continue
		}
		switch pattern[i] {
		case '*', '+', '-':
			repeated++
			i++
		case '?':
			optional++
			i++
		}
	}
	return anchored, repeated, optional
}

// setEnd is the index after the set [..] that starts at i (a ] first in it, after an
// optional ^, is one of its characters; %] is escaped).
func setEnd(pattern string, i int) int {
	j := i + 1
	if j < len(pattern) && pattern[j] == '^' {
		j++
	}
	if j < len(pattern) && pattern[j] == ']' {
		j++
	}
	for j < len(pattern) && pattern[j] != ']' {
		if pattern[j] == '%' {
			j++
		}
		j++
	}
	return j + 1
}

// guard replaces lib[name] by a function that runs check on the call's arguments (which
// raises an error to refuse them), then the original.
func guard(L *lua.LState, lib *lua.LTable, name string, check func(*lua.LState)) {
	original := lib.RawGetString(name).(*lua.LFunction)
	lib.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
		check(L)
		return callThrough(L, original)
	}))
}

// argsLength is the total length of the string arguments of the call from the first.
func argsLength(L *lua.LState, first int) int {
	n := 0
	for i := first; i <= L.GetTop(); i++ {
		if s, ok := L.Get(i).(lua.LString); ok {
			n += len(s)
		}
	}
	return n
}

// boundedReplacement wraps gsub's table or function replacement so that the text it
// inserts stays within max bytes in all.
func boundedReplacement(L *lua.LState, repl lua.LValue, max int) *lua.LFunction {
	total := 0
	return L.NewFunction(func(L *lua.LState) int {
		var v lua.LValue
		switch r := repl.(type) {
		case *lua.LTable:
			v = L.GetTable(r, L.Get(1))
		case *lua.LFunction:
			top := L.GetTop()
			L.Push(r)
			for i := 1; i <= top; i++ {
				L.Push(L.Get(i))
			}
			L.Call(top, 1)
			v = L.Get(-1)
			L.Pop(1)
		}
		if s, ok := v.(lua.LString); ok {
			if total += len(s); total > max {
				L.RaiseError("string.gsub: the replacements are longer than %d bytes", max)
			}
		}
		L.Push(v)
		return 1
	})
}

// callThrough calls fn with the arguments of the current call and returns its results.
func callThrough(L *lua.LState, fn *lua.LFunction) int {
	top := L.GetTop()
	args := make([]lua.LValue, top)
	for i := range top {
		args[i] = L.Get(i + 1)
	}
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	L.Call(top, lua.MultRet)
	return L.GetTop() - top
}

// heapObjects is the runtime metric of the bytes held by heap objects.
const heapObjects = "/memory/classes/heap/objects:bytes"

// watchHeap calls stop when the heap grew by more than limit since it started, until
// done.
func watchHeap(limit uint64, done <-chan struct{}, stop func()) {
	sample := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(sample)
	start := sample[0].Value.Uint64()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			metrics.Read(sample)
			if now := sample[0].Value.Uint64(); now > start && now-start > limit {
				stop()
				return
			}
		}
	}
}

// arrayMeta marks the tables toLua makes of lists, so that fromLua gives back a list, an
// empty one included.
const arrayMeta = "fed.array"

// MaxDepth is how deeply nested a script's result may be.
const MaxDepth = 64

// toLua converts a Go value as JSON decodes it into a Lua value: an object's keys are
// set in sorted order (so that pairs() visits them in one order every call), a list's
// elements by index (nil ones leave a hole) in a table marked as a list.
func toLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case int64:
		return lua.LNumber(x)
	case int32:
		return lua.LNumber(x)
	case int:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case map[string]any:
		t := L.CreateTable(0, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t.RawSetString(k, toLua(L, x[k]))
		}
		return t
	case []any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, toLua(L, e))
		}
		L.SetMetatable(t, L.NewTypeMetatable(arrayMeta))
		return t
	case []map[string]any:
		list := make([]any, len(x))
		for i, e := range x {
			list[i] = e
		}
		return toLua(L, list)
	}
	return lua.LString(fmt.Sprint(v))
}

// fromLua converts a Lua value back: a table marked as a list, or one with the keys 1..n
// only, is a list (nil elements are null); any other table an object (an empty one made
// by the script an empty object); integral numbers are int64. Lua's numbers are doubles:
// integers beyond 2^53 do not survive a script. A table nested deeper than MaxDepth (or in
// itself) is an error.
func fromLua(L *lua.LState, v lua.LValue) (any, error) {
	return fromLuaAt(L, v, 0)
}

func fromLuaAt(L *lua.LState, v lua.LValue, depth int) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case lua.LNumber:
		f := float64(x)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
		return f, nil
	case *lua.LTable:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("a table nested more than %d deep (or in itself)", MaxDepth)
		}
		n := x.MaxN()
		count, indexed := 0, 0
		x.ForEach(func(k, _ lua.LValue) {
			count++
			if i, ok := k.(lua.LNumber); ok && float64(i) == math.Trunc(float64(i)) && int(i) >= 1 && int(i) <= n {
				indexed++
			}
		})
		// A table's metatable is nil unless set: until a list was given to the script
		// the list metatable is nil too, and a plain table must not read as one.
		mt := L.GetMetatable(x)
		if mt != lua.LNil && mt == L.GetTypeMetatable(arrayMeta) && indexed == count || n > 0 && n == count {
			list := make([]any, 0, n)
			for i := 1; i <= n; i++ {
				e, err := fromLuaAt(L, x.RawGetInt(i), depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, e)
			}
			return list, nil
		}
		obj := map[string]any{}
		var err error
		x.ForEach(func(k, e lua.LValue) {
			if err != nil || e == lua.LNil {
				return
			}
			obj[k.String()], err = fromLuaAt(L, e, depth+1)
		})
		return obj, err
	}
	return nil, nil
}
