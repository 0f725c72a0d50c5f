package agent

import (
	"reflect"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// runtimeFields are Engine's unexported fields: the state of its runs,
// which a clone starts without. A new unexported field must be added here
// on purpose (or copied by Clone).
var runtimeFields = map[string]bool{"mu": true, "running": true}

// testValues are non-zero values of the interface types an Engine holds.
func testValues() map[reflect.Type]any {
	return map[reflect.Type]any{
		reflect.TypeFor[llm.Client](): &script{},
		reflect.TypeFor[Tools]():      &fakeTools{},
		reflect.TypeFor[Policy]():     &policy{},
		reflect.TypeFor[Approver]():   &approver{},
		reflect.TypeFor[Asker]():      &fakeAsker{},
		reflect.TypeFor[Store]():      &memStore{},
		reflect.TypeFor[Hooks]():      &fakeHooks{},
	}
}

// fill sets v (settable) to a non-zero value of its type, recursively;
// it reports the path of a value it cannot make (an interface type with
// no test value).
func fill(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Interface:
		x, ok := testValues()[v.Type()]
		if !ok {
			t.Fatalf("%s: no test value of %s: add one to testValues", path, v.Type())
		}
		v.Set(reflect.ValueOf(x))
	case reflect.Func:
		v.Set(reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, v.Type().NumOut())
			for i := range out {
				out[i] = reflect.Zero(v.Type().Out(i))
			}
			return out
		}))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				fill(t, v.Field(i), path+"."+f.Name)
			}
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), path)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(t, s.Index(0), path+"[0]")
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, path+"[key]")
		fill(t, e, path+"[elem]")
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	default:
		t.Fatalf("%s: cannot fill a %s", path, v.Kind())
	}
}

// same reports whether a and b hold the same values, funcs compared by
// identity, and names the first difference.
func same(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path
	}
	switch a.Kind() {
	case reflect.Func, reflect.Map:
		if a.Pointer() != b.Pointer() {
			return path
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if f := a.Type().Field(i); f.IsExported() {
				if d := same(a.Field(i), b.Field(i), path+"."+f.Name); d != "" {
					return d
				}
			}
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			return path
		}
		for i := 0; i < a.Len(); i++ {
			if d := same(a.Index(i), b.Index(i), path+"[i]"); d != "" {
				return d
			}
		}
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() != b.IsNil() || !a.IsNil() && a.Kind() == reflect.Interface && a.Elem().Pointer() != b.Elem().Pointer() {
			return path
		}
		if a.Kind() == reflect.Pointer && !a.IsNil() {
			return same(a.Elem(), b.Elem(), path)
		}
	default:
		if !a.Equal(b) {
			return path
		}
	}
	return ""
}

// Clone copies every field of an engine's setup: each exported field
// (and each field of its Config) is set to a non-zero value and must come
// back unchanged on the clone. A field added to Engine or Config that
// Clone does not copy fails here; so does an unexported field that is
// not known runtime state.
func TestCloneCopiesEveryField(t *testing.T) {
	var e Engine
	v := reflect.ValueOf(&e).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			if !runtimeFields[f.Name] {
				t.Fatalf("Engine.%s is unexported and not known runtime state: copy it in Clone and list it in runtimeFields", f.Name)
			}
			continue
		}
		fill(t, v.Field(i), "Engine."+f.Name)
	}
	c := e.Clone()
	if d := same(reflect.ValueOf(&e).Elem(), reflect.ValueOf(c).Elem(), "Engine"); d != "" {
		t.Fatalf("Clone does not copy %s", d)
	}
	// The clone's lists are its own.
	c.Config.EngineTools[0].Spec.Name = "changed"
	c.Config.Fallbacks[0].ID = "changed"
	c.Config.DoneMarkers[0] = "changed"
	if e.Config.EngineTools[0].Spec.Name == "changed" || e.Config.Fallbacks[0].ID == "changed" || e.Config.DoneMarkers[0] == "changed" {
		t.Fatal("changing the clone's Config lists changed the engine's")
	}
}

// WithModel changes exactly what follows the model: its client, info,
// text-call mode, reasoning settings, store and tools; the policy,
// approver, asker, hooks, system prompt and budget stay the engine's.
func TestWithModelKeepsEveryGuarantee(t *testing.T) {
	var e Engine
	v := reflect.ValueOf(&e).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.IsExported() {
			fill(t, v.Field(i), "Engine."+f.Name)
		}
	}
	e.Config.CommandBlocks = false
	m := &OpenModel{Client: &script{}, Info: ModelInfo{Provider: "p", Name: "other"}, Store: &memStore{}, Tools: &fakeTools{},
		CommandBlocks: true, ReasoningEffort: "high", ThinkingBudget: 2048, Verbosity: "low"}
	c := e.WithModel(m)
	if c.Client != m.Client || c.Store != m.Store || c.Tools != m.Tools || c.Config.Model != m.Info {
		t.Fatal("WithModel did not put the engine on the model's client, store, tools and info")
	}
	if !c.Config.CommandBlocks || c.Config.Request.ReasoningEffort != "high" || c.Config.Request.ThinkingBudget != 2048 || c.Config.Request.Verbosity != "low" {
		t.Fatalf("WithModel kept the old model's settings: %+v", c.Config.Request)
	}
	if c.Policy != e.Policy || c.Approver != e.Approver || c.Asker != e.Asker || c.Hooks != e.Hooks ||
		c.Config.System != e.Config.System || same(reflect.ValueOf(c.Config.Budget), reflect.ValueOf(e.Config.Budget), "Budget") != "" || c.Config.MaxTurns != e.Config.MaxTurns {
		t.Fatal("WithModel dropped a guarantee of the engine")
	}
	// A model without its own store or tools keeps the engine's.
	c = e.WithModel(&OpenModel{Client: &script{}})
	if c.Store != e.Store || c.Tools != e.Tools {
		t.Fatal("WithModel replaced the store or tools with nil")
	}
}
