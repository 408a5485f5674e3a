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
	"strings"
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
	fail := func(err error) (string, []any, error) {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		return "", nil, err
	}
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return fail(err)
	}
	var name string
	var fn *lua.LFunction
	for _, f := range functions {
		if v, ok := L.GetGlobal(f).(*lua.LFunction); ok {
			name, fn = f, v
			break
		}
	}
	if fn == nil {
		return "", nil, fmt.Errorf("the script defines no function %s", strings.Join(functions, " or "))
	}
	values := make([]lua.LValue, len(args))
	for i, a := range args {
		values[i] = toLua(L, a)
	}
	if err := L.CallByParam(lua.P{Fn: fn, NRet: nret, Protect: true}, values...); err != nil {
		return fail(err)
	}
	out := make([]any, nret)
	for i := range nret {
		out[i] = fromLua(L.Get(-nret + i))
	}
	L.Pop(nret)
	return name, out, nil
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
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "require", "module", "print", "collectgarbage",
		"getfenv", "setfenv", "newproxy", "_printregs"} {
		L.SetGlobal(name, lua.LNil)
	}
	str := L.GetGlobal(lua.StringLibName).(*lua.LTable)
	max := s.limits.MaxString
	rep := str.RawGetString("rep").(*lua.LFunction)
	str.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
		if n := L.OptInt(2, 0); n > 0 && float64(len(L.CheckString(1)))*float64(n) > float64(max) {
			L.RaiseError("string.rep: the result would be longer than %d bytes", max)
		}
		return callThrough(L, rep)
	}))
	format := str.RawGetString("format").(*lua.LFunction)
	str.RawSetString("format", L.NewFunction(func(L *lua.LState) int {
		for _, m := range widths.FindAllStringSubmatch(L.CheckString(1), -1) {
			for _, w := range m[1:] {
				if len(w) > 4 {
					L.RaiseError("string.format: a width or precision of %s is too large", w)
				}
			}
		}
		return callThrough(L, format)
	}))
	kube := L.CreateTable(0, len(s.helpers))
	for name, h := range s.helpers {
		kube.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			args := make([]any, L.GetTop())
			for i := range args {
				args[i] = fromLua(L.Get(i + 1))
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
}

// widths finds the width and precision of each directive of a format.
var widths = regexp.MustCompile(`%[-+ #0]*([0-9]*)(?:\.([0-9]*))?[a-zA-Z%]`)

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

// toLua converts a Go value as JSON decodes it into a Lua value.
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
		for k, e := range x {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	case []any:
		t := L.CreateTable(len(x), 0)
		for _, e := range x {
			t.Append(toLua(L, e))
		}
		return t
	case []map[string]any:
		t := L.CreateTable(len(x), 0)
		for _, e := range x {
			t.Append(toLua(L, e))
		}
		return t
	}
	return lua.LString(fmt.Sprint(v))
}

// fromLua converts a Lua value back: a table with the keys 1..n only is a list, any
// other table an object (an empty one an empty object); integral numbers are int64.
func fromLua(v lua.LValue) any {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return bool(x)
	case lua.LString:
		return string(x)
	case lua.LNumber:
		f := float64(x)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f)
		}
		return f
	case *lua.LTable:
		n := x.MaxN()
		count := 0
		x.ForEach(func(lua.LValue, lua.LValue) { count++ })
		if n > 0 && n == count {
			list := make([]any, 0, n)
			for i := 1; i <= n; i++ {
				list = append(list, fromLua(x.RawGetInt(i)))
			}
			return list
		}
		obj := map[string]any{}
		x.ForEach(func(k, e lua.LValue) {
			if e != lua.LNil {
				obj[k.String()] = fromLua(e)
			}
		})
		return obj
	}
	return nil
}

// Defines runs the script (its top level only) and says which of functions it defines,
// the first found; "" when none.
func (s *Script) Defines(ctx context.Context, functions []string) (string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.limits.Timeout, ErrTimeout)
	defer cancel()
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 200, RegistrySize: 1024, RegistryMaxSize: 64 * 1024, MinimizeStackMemory: true})
	defer L.Close()
	s.open(L)
	L.SetContext(ctx)
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		return "", err
	}
	for _, f := range functions {
		if _, ok := L.GetGlobal(f).(*lua.LFunction); ok {
			return f, nil
		}
	}
	return "", nil
}
